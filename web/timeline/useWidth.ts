import { useLayoutEffect, useRef, useState } from 'react';

/** The width of an element, kept current with a ResizeObserver so the timeline fills 768 to 1920 px alike. */
export function useWidth<T extends HTMLElement>(initial = 900): [React.RefObject<T | null>, number] {
  const ref = useRef<T | null>(null);
  const [width, setWidth] = useState(initial);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el === null) return;
    setWidth(el.clientWidth || initial);
    const ro = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width;
      if (w !== undefined && w > 0) setWidth(Math.floor(w));
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [initial]);
  return [ref, width];
}
