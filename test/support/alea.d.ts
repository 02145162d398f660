// seedrandom's Alea generator on its own, the reference test/alea.test.ts checks sim/kernel/rng.ts against (the package index also loads Node's crypto for autoseeding).
declare module 'seedrandom/lib/alea.js' {
  interface AleaPrng {
    (): number;
    int32(): number;
    double(): number;
  }
  const alea: (seed: string) => AleaPrng;
  export default alea;
}
