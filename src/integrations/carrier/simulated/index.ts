/** The simulated carrier's entry: what the rest of Leadline may import from this folder. */
export * from './simulated-carrier.adapter.ts'
export * from './simulated-answers.ts'
export * from './simulated-numbers.ts'
