/** The Twilio carrier's entry: the adapter, and what its callback route needs (signatures, status, TwiML). */
export * from './twilio-carrier.adapter.ts'
export * from './answer-twiml.ts'
