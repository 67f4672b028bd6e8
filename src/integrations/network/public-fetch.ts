/**
 * Requests to addresses an owner typed (a CalDAV server, a self-hosted Cal.com) reach public addresses
 * only, as outbound events' receivers do (src/integrations/event-receivers/): a URL's host is resolved,
 * every address checked with the same rules (src/domain/outbound-events/receiver-address.ts: never the
 * cloud's metadata address; private, loopback and plain-http networks only when the operator allows
 * them), and the socket connects to the checked addresses (the agent's `lookup` checks and pins, so a
 * name that answers differently to the check and to the connection never reaches a private address).
 */
import dns from 'node:dns'
import type { LookupFunction } from 'node:net'
import { Agent, fetch as undiciFetch } from 'undici'
import { literalAddress, receiverAddressAllowed, type ReceiverRules } from '../../domain/outbound-events/receiver-address.ts'

/** An address that may not be reached (or a name that does not resolve): nothing was sent. */
export class AddressNotAllowed extends Error {
  readonly code = 'ERR_ADDRESS_NOT_ALLOWED'
  constructor(readonly host: string) {
    super(`${host} is not a public address (or does not resolve); a private network needs LEADLINE_CALENDAR_ALLOW_PRIVATE=1`)
    this.name = 'AddressNotAllowed'
  }
}

export type Resolver = (hostname: string) => Promise<ReadonlyArray<{ readonly address: string; readonly family: number }>>

/** The system's resolver (getaddrinfo: /etc/hosts, then DNS), every address, in its order. */
export const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true })

/** Every address of `url`'s host, each allowed by `rules`; else AddressNotAllowed. */
export async function allowedAddresses(url: URL, rules: ReceiverRules, resolve: Resolver = systemResolver): Promise<Array<{ address: string; family: number }>> {
  const literal = literalAddress(url)
  if (literal !== null) {
    if (!receiverAddressAllowed(literal, rules)) throw new AddressNotAllowed(url.hostname)
    return [{ address: literal, family: literal.includes(':') ? 6 : 4 }]
  }
  let addresses: ReadonlyArray<{ address: string; family: number }>
  try {
    addresses = await resolve(url.hostname)
  } catch {
    throw new AddressNotAllowed(url.hostname)
  }
  if (addresses.length === 0 || !addresses.every((a) => receiverAddressAllowed(a.address, rules))) throw new AddressNotAllowed(url.hostname)
  return addresses.map((a) => ({ address: a.address, family: a.family }))
}

/**
 * net's `lookup` for an agent that checks and pins: `addressesOf` resolves a host and refuses any address
 * it may not reach; the socket then connects to those addresses only (never to what a second resolution says).
 */
export function pinnedLookup(addressesOf: (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>, refused: (hostname: string) => Error): LookupFunction {
  return (hostname, options, callback) => {
    addressesOf(hostname).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses
        if (wanted.length === 0) return callback(refused(hostname) as NodeJS.ErrnoException, '', 0)
        if (options.all) return (callback as unknown as (error: null, all: typeof wanted) => void)(null, wanted)
        const [first] = wanted as [{ address: string; family: number }]
        callback(null, first.address, first.family)
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
    )
  }
}

/** A `fetch` that reaches only the addresses `rules` allow (the host checked and the connection pinned); an address refused rejects with AddressNotAllowed as its cause. */
export function publicFetch(rules: ReceiverRules, resolve: Resolver = systemResolver): typeof fetch {
  const lookup = pinnedLookup((hostname) => allowedAddresses(new URL(`http://${hostname.includes(':') ? `[${hostname}]` : hostname}/`), rules, resolve), (hostname) => new AddressNotAllowed(hostname))
  const dispatcher = new Agent({ connect: { lookup } })
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url)
    // A literal address never goes through `lookup`: it is checked here.
    if (literalAddress(url) !== null) await allowedAddresses(url, rules, resolve)
    return undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher })
  }) as unknown as typeof fetch
}

/** What an adapter needs to reach an address an owner typed: the guarded fetch, and the check to make before keeping the address. */
export interface OwnerNetwork {
  readonly fetch: typeof fetch
  /** Refuses (AddressNotAllowed, or PlainHttpRefused) an address the server may not reach. */
  check(url: string): Promise<void>
}

/** Plain http to a public address would carry the owner's password in the clear. */
export class PlainHttpRefused extends Error {
  readonly code = 'ERR_PLAIN_HTTP'
  constructor(readonly host: string) {
    super(`${host} must be reached over https (plain http only on a private network, with LEADLINE_CALENDAR_ALLOW_PRIVATE=1)`)
    this.name = 'PlainHttpRefused'
  }
}

export function ownerNetwork(rules: ReceiverRules, resolve: Resolver = systemResolver): OwnerNetwork {
  return {
    fetch: publicFetch(rules, resolve),
    async check(text) {
      const url = new URL(text)
      if (url.protocol === 'http:' && !rules.allowPrivate) throw new PlainHttpRefused(url.host)
      await allowedAddresses(url, rules, resolve)
    },
  }
}
