/** The simulated calendar's entry. */
export * from './simulated-calendar.adapter.ts'
