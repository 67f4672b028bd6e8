/**
 * Schema pieces routes share: form fields as fastify reads them, an HTML page, and the validator of routes whose
 * body is the exact bytes a vendor signed (its schema describes it; the route checks it after the signature).
 */
import type { FastifySchemaCompiler } from 'fastify'
import { validatorCompiler } from 'fastify-type-provider-zod'
import { z } from 'zod'

/**
 * The schema of a page for people (the console, the docs, the pay page, the home page): validated like any
 * route, left out of /docs/openapi.json, which describes what programs call (docs/webhook.md#machine-readable-description).
 */
export const PAGE_FOR_PEOPLE = { hide: true } as const

/** Form fields or query parameters as fastify parses them: a name sent twice is a list. */
export const formFields = z.record(z.string(), z.union([z.string(), z.array(z.string())]))

/** An answer that is a page for people. */
export const htmlAnswer = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } })

/**
 * Validates the query, the parameters and the headers; the body stays the bytes sent, for the route to check
 * the sender's signature over them before it reads them (with the same schema).
 */
export function signedBodyValidator<S>(route: Parameters<FastifySchemaCompiler<S>>[0]): ReturnType<FastifySchemaCompiler<S>> {
  return route.httpPart === 'body' ? (value) => ({ value }) : validatorCompiler(route as unknown as Parameters<typeof validatorCompiler>[0])
}

/** For routes whose requests something else reads and checks (the tool endpoint, the OAuth library): the schemas describe them. */
export const describedOnly = () => (value: unknown) => ({ value })

/** For routes whose answers are written as they always were: the response schemas describe them, and a mismatch is no 500. */
export const answersAsWritten = () => (data: unknown) => JSON.stringify(data)
