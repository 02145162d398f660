/*
 * The theme chosen on an earlier visit, applied before the page first
 * paints: the page's code, which sets it for good (web/app.tsx), comes a
 * moment later, and a learner who picked dark on a light system would see
 * the page white until then. A classic script from the page's own origin,
 * as its content security policy allows; storage may be disabled.
 */
try {
  const theme = localStorage.getItem('locklab.theme');
  if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;
} catch {
  // No storage: the system's preference decides, as the page's code will.
}
