/** The Stripe adapter's entry: the adapter, and what its webhook route needs (signature, settlement). */
export * from './stripe-payments.adapter.ts'
