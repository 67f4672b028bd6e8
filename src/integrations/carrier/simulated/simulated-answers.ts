/**
 * Who answers a simulated call and which menu key a person presses: weighted draws from a seeded
 * generator, so a run with the same seed plays the same calls in the same order (tests and demos
 * can repeat a run, or ask for one path with a single name such as `machine`).
 */

/** Who picks up: a person, an answering machine, nobody (no-answer), or a busy line. */
export type SimulatedWho = 'human' | 'machine' | 'none' | 'busy'
export const SIMULATED_WHO: readonly SimulatedWho[] = ['human', 'machine', 'none', 'busy']

/** A key of the phone's pad, or `none`: the person listens to the menu and presses nothing. */
export type SimulatedKey = string
export const SIMULATED_KEYS: readonly SimulatedKey[] = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '#', 'none']

/** Used when LEADLINE_SIMULATED_SEED is not set, so two runs play the same calls. */
export const DEFAULT_SIMULATED_SEED = 26
export interface Weighted<T extends string> {
  readonly name: T
  readonly weight: number
}

/** Used when LEADLINE_SIMULATED_KEYS is not set: nobody presses a key (no lead opts out by surprise). */
export const DEFAULT_SIMULATED_KEYS: readonly Weighted<SimulatedKey>[] = [{ name: 'none', weight: 1 }]

/**
 * Reads `name:weight,name:weight` (a bare `name` weighs 1; names left out weigh 0). Returns the
 * problem in words when the text is not such a list of `allowed` names with at least one weight above 0.
 */
export function parseWeights<T extends string>(text: string, allowed: readonly T[]): Weighted<T>[] | string {
  const seen = new Set<string>()
  const weights: Weighted<T>[] = []
  for (const part of text.split(',').map((p) => p.trim())) {
    if (part === '') return `has an empty entry; write name:weight pairs separated by commas, such as ${allowed[0]}:60,${allowed[1]}:40`
    const [name = '', weightText, ...rest] = part.split(':').map((p) => p.trim())
    if (!(allowed as readonly string[]).includes(name)) return `"${name}" is not one of ${allowed.join(', ')}`
    if (rest.length > 0 || weightText === '') return `"${part}" is not name:weight`
    if (seen.has(name)) return `names "${name}" twice`
    seen.add(name)
    const weight = weightText === undefined ? 1 : Number(weightText)
    if (!/^\d+$/.test(weightText ?? '1') || !Number.isSafeInteger(weight)) return `the weight of "${name}" must be a whole number, 0 or more (got "${weightText}")`
    weights.push({ name: name as T, weight })
  }
  if (!weights.some((w) => w.weight > 0)) return 'needs at least one weight above 0'
  return weights
}

/** `human:60,machine:30`: the form the start-up log and the docs show. */
export function formatWeights(weights: readonly Weighted<string>[]): string {
  return weights.map((w) => `${w.name}:${w.weight}`).join(',')
}

/** mulberry32: small, fast, and the same numbers for the same seed on every platform. Not for secrets. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = a
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

/** One name, drawn in proportion to its weight. */
export function draw<T extends string>(weights: readonly Weighted<T>[], random: () => number): T {
  const total = weights.reduce((sum, w) => sum + w.weight, 0)
  let point = random() * total
  for (const w of weights) {
    if (point < w.weight) return w.name
    point -= w.weight
  }
  // Rounding at the very top of the range: the last name with any weight.
  return [...weights].reverse().find((w) => w.weight > 0)?.name as T
}

export interface SimulatedAnswers {
  readonly answers: readonly Weighted<SimulatedWho>[]
  readonly keys: readonly Weighted<SimulatedKey>[]
  readonly seed: number
}

/**
 * Draws each call's answer, and a person's key, in the order calls are placed. The two draws use
 * separate generators, so changing the keys' weights does not change who answers.
 */
export function answerDrawer(plan: SimulatedAnswers): () => { who: SimulatedWho; key: SimulatedKey | null } {
  const who = seededRandom(plan.seed)
  const key = seededRandom(plan.seed ^ 0x5eed)
  return () => {
    const answer = draw(plan.answers, who)
    if (answer !== 'human') return { who: answer, key: null }
    const pressed = draw(plan.keys, key)
    return { who: answer, key: pressed === 'none' ? null : pressed }
  }
}
