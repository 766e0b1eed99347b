/**
 * A small deterministic pseudo-random generator (mulberry32): the analytics bench draws its
 * made-up histories from a fixed seed, so two runs replay the same mix and their figures
 * compare. Not for anything secret.
 */
export type Random = () => number;

/** Numbers in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** An integer from `min` to `max`, both included. */
export function between(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}
