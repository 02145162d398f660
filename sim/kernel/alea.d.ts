// seedrandom's Alea generator on its own: the package index also loads Node's crypto for autoseeding, which Locklab never uses.
declare module 'seedrandom/lib/alea.js' {
  interface AleaPrng {
    (): number;
    int32(): number;
    double(): number;
  }
  const alea: (seed: string) => AleaPrng;
  export default alea;
}
