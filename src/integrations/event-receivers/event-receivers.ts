/**
 * The network side of outbound events' receivers (issue #40): a receiver's host is resolved once per
 * connection, every address it resolves to is checked (src/domain/outbound-events/receiver-address.ts),
 * and the socket connects to those checked addresses: the `lookup` of the agents below both checks
 * and pins, so a name that answers a public address to the check and a private one to the connection
 * (DNS rebinding) never reaches the private one. TLS still names the host (SNI) and so does `Host`.
 * Redirects are never followed. The resolver is an option, so tests bring a hosts-style one.
 */
import http from 'node:http'
import https from 'node:https'
import { DomainError } from '../../domain/shared/decider.ts'
import { allowedAddresses, pinnedLookup, systemResolver } from '../network/public-fetch.ts'
import { literalAddress, NOT_PUBLIC_MESSAGE, receiverAddressAllowed, receiverUrl, type ReceiverRules } from '../../domain/outbound-events/receiver-address.ts'

export interface ResolvedAddress {
  readonly address: string
  readonly family: number
}

/** Every address a host name resolves to. */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>


/** A delivery not attempted: what the delivery log shows, the same whatever listens (or not) at the address. */
export class ReceiverRefused extends Error {
  readonly code = 'ERR_RECEIVER_REFUSED'
  constructor(readonly shown: 'refused: address not public' | 'refused: not https') {
    super(shown)
    this.name = 'ReceiverRefused'
  }
}

export interface ReceiverRequest {
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly signal: AbortSignal
}

/** A receiver's answer's body is read and dropped up to this size; past it the connection is cut. */
const MAX_ANSWER_BYTES = 64 * 1024

export class EventReceivers {
  readonly rules: ReceiverRules
  private readonly resolve: HostResolver
  private readonly httpsAgent: https.Agent
  private readonly httpAgent: http.Agent

  constructor(options: { rules: ReceiverRules; resolve?: HostResolver }) {
    this.rules = options.rules
    this.resolve = options.resolve ?? systemResolver
    // An address host never reaches the lookup (net connects to it directly): post() checks it.
    const lookup = pinnedLookup((hostname) => this.allowedAddresses(hostname), () => new ReceiverRefused('refused: address not public'))
    this.httpsAgent = new https.Agent({ keepAlive: true, lookup })
    this.httpAgent = new http.Agent({ keepAlive: true, lookup })
  }

  /**
   * At subscription: the URL's form, then every address its host resolves to. Refusals carry stable
   * codes (`invalid_url`, `receiver_not_https`, `receiver_not_public`); a name that does not resolve
   * is refused like a private one, so the answer tells nothing of the server's own network's names.
   * Where private receivers are allowed, names are checked at delivery only: a self-hosted network's
   * names may resolve only where the server runs, not where `leadline events subscribe` does.
   */
  async check(text: string): Promise<void> {
    const url = receiverUrl(text, this.rules)
    if (literalAddress(url) !== null || this.rules.allowPrivate) return
    await this.allowedAddresses(url.hostname).catch(() => {
      throw new DomainError('receiver_not_public', NOT_PUBLIC_MESSAGE)
    })
  }

  /** Posts one delivery; resolves with the HTTP status (a redirect is an answer, not followed). */
  async post(text: string, request: ReceiverRequest): Promise<number> {
    let url: URL
    try {
      url = new URL(text)
    } catch {
      throw new ReceiverRefused('refused: address not public')
    }
    // Checked again at every delivery: a subscription kept on the log may predate these rules or the setting.
    const literal = literalAddress(url)
    if (literal !== null && !receiverAddressAllowed(literal, this.rules)) throw new ReceiverRefused('refused: address not public')
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.rules.allowPrivate)) throw new ReceiverRefused('refused: not https')
    const secure = url.protocol === 'https:'
    return new Promise<number>((resolve, reject) => {
      const outgoing = (secure ? https : http).request(
        url,
        {
          method: 'POST',
          agent: secure ? this.httpsAgent : this.httpAgent,
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          signal: request.signal,
        },
        (answer) => {
          let bytes = 0
          answer.on('data', (chunk: Buffer) => {
            bytes += chunk.length
            if (bytes > MAX_ANSWER_BYTES) answer.destroy()
          })
          answer.on('error', () => {})
          resolve(answer.statusCode ?? 0)
        },
      )
      outgoing.on('error', reject)
      outgoing.end(request.body)
    })
  }

  /** Drops the kept connections (a stop). */
  close(): void {
    this.httpsAgent.destroy()
    this.httpAgent.destroy()
  }

  /** The addresses of `hostname`, every one of them allowed (the rule owner-named calendars follow too); else ReceiverRefused. */
  private async allowedAddresses(hostname: string): Promise<ResolvedAddress[]> {
    try {
      return await allowedAddresses(new URL(`http://${hostname}/`), this.rules, this.resolve)
    } catch {
      throw new ReceiverRefused('refused: address not public')
    }
  }
}
