/** The simulated payments provider's entry: what the rest of Leadline may import from this folder. */
export * from './simulated-payments.adapter.ts'
