/*
 * Transport icons drawn as SVG: media-control characters (⏮ ⏸ ⏭) are
 * missing from many fonts, and a box where a button's face should be is
 * worse than no icon at all.
 */
const PATHS = {
  first: 'M3 3h2v10H3zM14 3v10L6 8z',
  back: 'M12 3v10L4 8z',
  play: 'M4 3v10l9-5z',
  pause: 'M4 3h3v10H4zM9 3h3v10H9z',
  forward: 'M4 3v10l8-5zM12 3h2v10h-2z',
  last: 'M2 3v10l8-5zM11 3h2v10h-2z',
  plus: 'M7 2h2v5h5v2H9v5H7V9H2V7h5z',
  minus: 'M2 7h12v2H2z',
  fit: 'M1 4V1h3v1.5H2.5V4zM12 1h3v3h-1.5V2.5H12zM15 12v3h-3v-1.5h1.5V12zM4 15H1v-3h1.5v1.5H4zM4 7h8v2H4z',
  lock: 'M5 7V5a3 3 0 0 1 6 0v2h1v7H4V7zm1.5 0h3V5a1.5 1.5 0 0 0-3 0z',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, size = 16 }: { name: IconName; size?: number }) {
  return (
    <svg className="icon" width={size} height={size} viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} fill="currentColor" fillRule="evenodd" />
    </svg>
  );
}
