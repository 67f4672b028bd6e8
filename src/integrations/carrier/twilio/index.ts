/** The Twilio carrier's entry: the adapter, its callbacks (signatures, status, TwiML) and their parts. */
export * from './twilio-carrier.adapter.ts'
export * from './twilio-callbacks.ts'
export * from './answer-twiml.ts'
export * from './agent-first-twiml.ts'
export * from './agent-first-callbacks.ts'
export * from './conversation-relay.ts'
export * from './twilio-numbers.ts'
