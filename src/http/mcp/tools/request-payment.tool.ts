/** `request_payment` (write, spec §4.2): texts a customer a card pay-link that settles into the account's connected account. */
import { z } from 'zod'
import { MAX_AMOUNT_CENTS, MAX_DESCRIPTION, requestPayment, type RequestPaymentResult } from '../../../commands/request-payment.command.ts'
import { RPC_CODES, RpcError } from '../json-rpc.ts'
import { leadReference } from '../lead-view.ts'
import { defineWriteTool } from '../tool.ts'

const dollars = (cents: number) => (cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })

/** The command's result as the tool answers it: snake_case, like every tool's output. */
function outputOf(result: RequestPaymentResult) {
  return {
    request_id: result.requestId,
    status: result.status,
    url: result.url,
    amount_cents: result.amountCents,
    currency: result.currency,
    amount: result.amount,
    description: result.description,
    expires_at: result.expiresAt,
    texted_to: result.textedTo,
    from: result.from,
    message: result.message,
    message_id: result.messageId,
    lead_id: result.leadId,
    connected_account: result.connectedAccount,
    carrier: result.carrier,
    provider: result.provider,
    dry_run: result.dryRun,
  }
}

export const tool = defineWriteTool({
  name: 'request_payment',
  title: 'Text a pay-link',
  summary: 'Text a lead a card pay-link',
  description:
    `Texts one lead of this account a card pay-link from the account's own number; the payment settles into the account's connected Stripe account (a direct charge: the money never passes through Leadline). Name the customer by phone (any formatting) or lead_id: they must already be a lead of this account. amountCents is in the currency's smallest unit (cents; the account's currency, usd by default), from 1 to ${MAX_AMOUNT_CENTS} (${dollars(MAX_AMOUNT_CENTS)} in a two-decimal currency). Returns the request id, the link and when it expires (snake_case members: request_id, expires_at, texted_to, …); the payment's settlement later shows in get_lead and get_lead_history. Refused, with error.data.code, when payments are not set up (payments_not_configured: no caller id), the account has no connected Stripe account (no_connected_account), the customer is not a lead of this account (customer_not_found), the lead is do-not-call (do_not_call), Stripe refuses (stripe_error) or the carrier does (carrier_error). The same idempotency_key never makes a second link or a second text. Use dry_run: true first to see the exact text, recipient, amount and connected account.`,
  scope: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: {
    amountCents: z
      .number()
      .int('must be a whole number of cents')
      .min(1, 'must be at least 1')
      .max(MAX_AMOUNT_CENTS, `must be at most ${MAX_AMOUNT_CENTS}`)
      .describe(`The amount in the currency's smallest unit (12500 = $125.00), 1 to ${MAX_AMOUNT_CENTS}`),
    description: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(MAX_DESCRIPTION, `must be at most ${MAX_DESCRIPTION} characters`)
      .describe(`What the customer pays for, 1 to ${MAX_DESCRIPTION} characters: shown in the text and on the payment page`),
    phone: leadReference.phone.describe(
      "The customer's phone number, in any formatting; matched by its last ten digits to a lead of this account. Give phone or lead_id.",
    ),
    lead_id: leadReference.lead_id.describe('The customer as a lead id (ld_…, as list_leads returns it). Give phone or lead_id.'),
  },
  output: z.object({
    request_id: z.string().nullable().describe('pay_…; null for a dry run'),
    status: z.enum(['texted', 'would_text']).describe('texted: the carrier accepted the text; would_text: a dry run'),
    url: z.string().nullable().describe('The pay-link texted to the customer; null for a dry run'),
    amount_cents: z.number().int(),
    currency: z.string().describe('ISO 4217, lower case'),
    amount: z.string().describe('The amount as written in the text, e.g. $125.00'),
    description: z.string(),
    expires_at: z.string().nullable().describe('ISO UTC; the link takes no payment after this'),
    texted_to: z.string().describe("The customer's number (E.164)"),
    from: z.string().describe("The account's number the text goes out from (E.164)"),
    message: z.string().describe('The text as sent; for a dry run with <link> where the link will be'),
    message_id: z.string().nullable().describe("The carrier's message id"),
    lead_id: z.string(),
    connected_account: z.string().nullable().describe('The connected Stripe account the charge is made on (acct_…); null with the simulated provider'),
    carrier: z.string().describe('The carrier that sent the text, by name: twilio, or simulated (no text reaches a phone)'),
    provider: z.string().describe('stripe, or simulated: no card is ever charged'),
    dry_run: z.boolean(),
  }),
  check(args) {
    if ((args.phone === undefined) === (args.lead_id === undefined)) {
      throw new RpcError(RPC_CODES.invalidParams, 'invalid_arguments', 'give exactly one of phone and lead_id (the customer)', {
        problems: [{ path: '', message: 'give exactly one of phone and lead_id' }],
      })
    }
  },
  // Until 0.1.0 the output was the service's camelCase result, and a replay answers what was recorded.
  recorded: (result) => ('requestId' in (result as object) ? outputOf(result as RequestPaymentResult) : (result as ReturnType<typeof outputOf>)),
  async run(args, context) {
    const result = await requestPayment(
      context.services,
      context.account,
      {
        phone: args.phone,
        leadId: args.lead_id,
        amountCents: args.amountCents,
        description: args.description,
        idempotencyKey: args.idempotency_key,
        dryRun: args.dry_run,
      },
      context.command,
    )
    return outputOf(result)
  },
})
