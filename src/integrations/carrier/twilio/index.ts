/** The Twilio carrier's entry: the adapter, its callbacks (signatures, status, TwiML) and their parts. */
export * from './twilio-carrier.adapter.ts'
export * from './twilio-callbacks.ts'
export * from './answer-twiml.ts'
