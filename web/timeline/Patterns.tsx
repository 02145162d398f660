/**
 * Fills that tell marks apart without colour: truth is hatched, belief is
 * solid (a pause solid grey in a row of its own), a double-ownership band is cross-hatched, a
 * store outage is densely hatched. Colours come from CSS (Okabe–Ito).
 */
export function Patterns() {
  return (
    <defs>
      <pattern id="ll-hatch-truth" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
        <rect className="pat-truth-bg" width="6" height="6" />
        <line className="pat-truth-line" x1="0" y1="0" x2="0" y2="6" strokeWidth="2.5" />
      </pattern>
      <pattern id="ll-hatch-double" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
        <line className="pat-double-line" x1="0" y1="0" x2="0" y2="8" strokeWidth="1.5" />
        <line className="pat-double-line" x1="0" y1="0" x2="8" y2="0" strokeWidth="1.5" />
      </pattern>
      <pattern id="ll-hatch-down" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">
        <line className="pat-down-line" x1="0" y1="0" x2="0" y2="4" strokeWidth="2" />
      </pattern>
      <pattern id="ll-waves" width="10" height="6" patternUnits="userSpaceOnUse">
        <path className="pat-wave" d="M0,3 Q2.5,0 5,3 T10,3" fill="none" strokeWidth="1.2" />
      </pattern>
      <marker id="ll-arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse">
        <path className="arrowhead" d="M0,0 L10,5 L0,10 Z" />
      </marker>
    </defs>
  );
}
