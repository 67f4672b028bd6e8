/**
 * The person on a simulated assistant call (`--on-answer assistant` with the simulated carrier): one
 * of a few seeded personas who says its lines in turn, the way ConversationRelay would hand Leadline
 * their finished utterances. Simulated: no one speaks, and the lines are the simulation's own.
 */
import { draw, seededRandom, type Weighted } from './simulated-answers.ts'

export type SimulatedPersona = 'interested' | 'callback' | 'person' | 'opt_out'

/** Who the simulated callers are, by weight: most go along, some ask for later or a person, a few opt out. */
export const SIMULATED_PERSONAS: readonly Weighted<SimulatedPersona>[] = [
  { name: 'interested', weight: 50 },
  { name: 'callback', weight: 20 },
  { name: 'person', weight: 20 },
  { name: 'opt_out', weight: 10 },
]

/** A line is said (a `prompt`) or a key pressed (`dtmf`). */
export type CallerLine = { readonly say: string } | { readonly key: string }

/** Each persona's lines, in turn; the last is repeated if the conversation goes on. */
const LINES: Readonly<Record<SimulatedPersona, readonly CallerLine[]>> = {
  interested: [{ say: 'Yes, this is me.' }, { say: 'Yes.' }, { say: 'Yes, that is right.' }, { say: 'Yes.' }, { say: 'Sounds good, thank you.' }],
  callback: [{ say: 'No.' }, { say: 'Tomorrow at 10 am.' }],
  person: [{ say: 'Yes.' }, { say: 'Can I talk to a person, please?' }, { say: 'A person, please.' }],
  opt_out: [{ say: 'Who is this?' }, { key: '9' }],
}

/** Draws each simulated assistant call's persona, in the order calls are answered. */
export function callerDrawer(seed: number, personas: readonly Weighted<SimulatedPersona>[] = SIMULATED_PERSONAS): () => { persona: SimulatedPersona; lines: readonly CallerLine[] } {
  const random = seededRandom(seed ^ 0xca11)
  return () => {
    const persona = draw(personas, random)
    return { persona, lines: LINES[persona] }
  }
}
