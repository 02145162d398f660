import { useEffect, useState, type ComponentType } from 'react';

/**
 * A view whose code loads when it is first shown, without Suspense. React
 * holds a Suspense boundary's content back until 300 ms after its fallback
 * appeared, so that a quick load does not flash; a lesson opened by its link
 * spent most of that time with its code loaded and nothing to show for it.
 * Here the view shows `loading` until its module has arrived, then itself;
 * once loaded, it shows at once wherever it is used again.
 */
export function onDemand<P extends object>(load: () => Promise<{ default: ComponentType<P> }>, loading: string): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  const loadOnce = (): Promise<ComponentType<P>> =>
    (pending ??= load().then(
      (m) => (loaded = m.default),
      (err: unknown) => {
        // A failed load (the network dropped) may be tried again when the view is next shown.
        pending = null;
        throw err;
      },
    ));
  function OnDemand(props: P) {
    const [view, setView] = useState<ComponentType<P> | null>(() => loaded);
    const [error, setError] = useState<string | null>(null);
    useEffect(() => {
      if (view !== null) return;
      let live = true;
      loadOnce().then(
        (v) => live && setView(() => v),
        (err: unknown) => live && setError(String((err as Error).message ?? err)),
      );
      return () => {
        live = false;
      };
    }, [view]);
    if (error !== null) return <p className="warn">This view could not be loaded ({error}). Reload the page to try again.</p>;
    if (view === null) return <p className="muted">{loading}</p>;
    const View = view;
    return <View {...props} />;
  }
  return OnDemand;
}
