import { DomainError } from '../../src/domain/shared/decider.ts'

/** The stable code a command was refused with, or what happened instead: a test asserts the refusal itself. */
export async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    return error instanceof DomainError ? error.code : `not a DomainError: ${String(error)}`
  }
  return 'not refused'
}
