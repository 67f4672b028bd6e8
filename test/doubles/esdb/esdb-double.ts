/**
 * TEST DOUBLE: an in-memory EventStoreDB server. It speaks EventStoreDB's gRPC protocol on
 * 127.0.0.1, built on the service definitions `@eventstore/db-client` ships
 * (`generated/*_grpc_pb.js`) and `@grpc/grpc-js`, so the real client (and through it our adapter)
 * talks to it exactly as to a server. No EventStoreDB can run where the tests run; this is the
 * part of the server Leadline uses. Set EVENTSTORE_TEST_URL to run the same suites on a real one.
 *
 * Server behaviours it models (as EventStoreDB 23.10+ over gRPC, single node, insecure):
 * - ServerFeatures.GetSupportedMethods: Streams Read, Append and BatchAppend (BatchAppend can be
 *   left out, so the client falls back to Append, as against servers before 21.10).
 * - Streams.Append (client streaming) and Streams.BatchAppend (bidirectional; chunks of one append
 *   gathered by correlation id until `is_final`; the per-batch deadline is honoured).
 * - Expected revisions: any, no_stream, stream_exists, exact; a mismatch answers the current
 *   revision (or no stream) and the expectation. Idempotent re-append of the same event ids: at the
 *   place an exact / no_stream expectation names, or found by id for any / stream_exists; a partial
 *   match ("corrupted idempotency") is a wrong expected version. An idempotent answer carries the
 *   original's last revision and position.
 * - Maximum append size (1 MiB by default, as the server's MaxAppendSize), summed over the
 *   proposed messages; required `type` and `content-type` metadata.
 * - One log of records at byte-like positions: an epoch record at 0, system events of a fresh node
 *   ($epoch-information, $users, $user-admin, $settings), then every write; commit == prepare for
 *   each event; positions increase but are not contiguous. `writeSystemEvent` adds more, and
 *   `systemEventIntervalMs` writes `$statistics-collected` events the way `--write-stats-to-db` does.
 * - Streams.Read of a stream: from a revision / start / end, forwards / backwards, a count;
 *   `stream_not_found` for a missing stream; events carry their $all position (as since 22.6).
 * - Streams.Read of $all: from start / end / a position, forwards (inclusive) / backwards (what
 *   lies before the position), a count, an optional server-side filter; a position inside a record
 *   or past the end fails with "Trying to read from an invalid position." (UNKNOWN).
 * - $all subscriptions: confirmation, catch-up from start / end / after a position (exclusive),
 *   `caught_up`, then live events as they are written, with server-side filters (stream name or
 *   event type, by prefixes or a regex, e.g. the client's excludeSystemEvents) and checkpoints
 *   every `max window × checkpoint multiplier` scanned events. Flow control: a subscriber that does
 *   not read is not written to (HTTP/2 back-pressure), nothing is dropped.
 * - UUIDs as strings or structured, as the request asks; `created` in ticks since the Unix epoch.
 * Test controls: `hold()` / `release()` stop and resume delivery to every subscription (a node
 * whose read models lag), `restart()` drops every connection and call and listens again on the
 * same port with the same log (a server restart or a leader change, as clients see it).
 *
 * Not modelled: stream subscriptions, persistent subscriptions, projections, stream deletion and
 * tombstones, stream metadata ($maxAge, $maxCount, ACLs), links and resolveLinkTos, explicit
 * transactions (TCP only), authentication and TLS, clusters, gossip, leader election and
 * NotLeader redirects, scavenging, reads from followers.
 */
import { randomUUID } from 'node:crypto'
import * as grpc from '@grpc/grpc-js'
import streamsPb from '@eventstore/db-client/generated/streams_pb.js'
import sharedPb from '@eventstore/db-client/generated/shared_pb.js'
import statusPb from '@eventstore/db-client/generated/status_pb.js'
import codePb from '@eventstore/db-client/generated/code_pb.js'
import serverFeaturesPb from '@eventstore/db-client/generated/serverfeatures_pb.js'
import { StreamsService } from '@eventstore/db-client/generated/streams_grpc_pb.js'
import { ServerFeaturesService } from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js'
import emptyPb from 'google-protobuf/google/protobuf/empty_pb.js'
import anyPb from 'google-protobuf/google/protobuf/any_pb.js'
import {
  EsdbLog,
  InvalidPositionError,
  matches,
  type AppendOutcome,
  type Expectation,
  type LogFilter,
  type ProposedEvent,
  type StoredEvent,
} from './esdb-log.ts'

const { ReadReq, ReadResp, AppendReq, AppendResp, BatchAppendReq, BatchAppendResp } = streamsPb
type ReadReqT = InstanceType<typeof ReadReq>
type ReadRespT = InstanceType<typeof ReadResp>
type AppendReqT = InstanceType<typeof AppendReq>
type AppendRespT = InstanceType<typeof AppendResp>
type BatchAppendReqT = InstanceType<typeof BatchAppendReq>
type BatchAppendRespT = InstanceType<typeof BatchAppendResp>
type ProposedMessage = InstanceType<typeof AppendReq.ProposedMessage> | InstanceType<typeof BatchAppendReq.ProposedMessage>
type UUIDT = InstanceType<typeof sharedPb.UUID>

/** EventStoreDB's default MaxAppendSize: 1 MiB. */
export const DEFAULT_MAX_APPEND_SIZE = 1024 * 1024
/** The server version the double reports (the behaviour it models). */
export const DOUBLE_SERVER_VERSION = '24.10.0-leadline-test-double'
const DEFAULT_FILTER_WINDOW = 32

export interface EsdbDoubleOptions {
  /** 0 (default) for any free port. */
  readonly port?: number
  /** Offer BatchAppend in ServerFeatures (default true); without it the client uses Append. */
  readonly batchAppend?: boolean
  readonly maxAppendSize?: number
  /** Write a `$statistics-collected` system event this often (0: never, the default). */
  readonly systemEventIntervalMs?: number
}

export interface EsdbDoubleStats {
  appends: number
  batchAppends: number
  reads: number
  subscriptions: number
  activeSubscriptions: number
}

export interface EsdbDouble {
  /** A connection string for the client: `esdb://127.0.0.1:PORT?tls=false`. */
  readonly url: string
  readonly port: number
  readonly log: EsdbLog
  readonly stats: EsdbDoubleStats
  /** Stops delivering to subscriptions (they keep their place); `release` resumes. */
  hold(): void
  release(): void
  /** Drops every connection and call, then listens again on the same port with the same log. */
  restart(): Promise<void>
  close(): Promise<void>
}

/** Starts the double on 127.0.0.1. */
export async function startEsdbDouble(options: EsdbDoubleOptions = {}): Promise<EsdbDouble> {
  const log = new EsdbLog()
  const maxAppendSize = options.maxAppendSize ?? DEFAULT_MAX_APPEND_SIZE
  const stats: EsdbDoubleStats = { appends: 0, batchAppends: 0, reads: 0, subscriptions: 0, activeSubscriptions: 0 }
  const subscriptions = new Set<LiveSubscription>()
  let held = false

  log.onWrite(() => {
    for (const subscription of subscriptions) subscription.pump()
  })

  const streams: grpc.UntypedServiceImplementation = {
    read(call: grpc.ServerWritableStream<ReadReqT, ReadRespT>) {
      stats.reads++
      const options = call.request.getOptions()
      if (!options) return fail(call, grpc.status.INVALID_ARGUMENT, 'options are required')
      const structured = options.getUuidOption()?.hasStructured() ?? false
      try {
        if (options.hasStream()) return readStream(call, options, structured)
        if (options.hasSubscription()) return subscribeToAll(call, options, structured)
        return readAll(call, options, structured)
      } catch (error) {
        if (error instanceof InvalidPositionError) return fail(call, grpc.status.UNKNOWN, error.message)
        throw error
      }
    },

    append(call: grpc.ServerReadableStream<AppendReqT, AppendRespT>, callback: grpc.sendUnaryData<AppendRespT>) {
      stats.appends++
      let header: InstanceType<typeof AppendReq.Options> | undefined
      const messages: ProposedMessage[] = []
      call.on('data', (request: AppendReqT) => {
        if (request.hasOptions()) header = request.getOptions()
        else if (request.hasProposedMessage()) messages.push(request.getProposedMessage() as ProposedMessage)
      })
      call.on('end', () => {
        if (!header) return callback({ code: grpc.status.INVALID_ARGUMENT, details: 'the first message must carry the options' })
        const stream = streamName(header.getStreamIdentifier())
        const expected = appendExpectation(header)
        const invalid = validate(messages, maxAppendSize)
        if (invalid) return callback(invalid)
        const outcome = log.append(stream, expected, messages.map(toProposed))
        callback(null, appendResponse(outcome))
      })
    },

    batchAppend(call: grpc.ServerDuplexStream<BatchAppendReqT, BatchAppendRespT>) {
      const pending = new Map<string, { options: InstanceType<typeof BatchAppendReq.Options>; messages: ProposedMessage[] }>()
      call.on('data', (request: BatchAppendReqT) => {
        const correlation = request.getCorrelationId()
        const key = correlation ? uuidString(correlation) : ''
        let batch = pending.get(key)
        if (!batch) {
          const options = request.getOptions()
          if (!options) return
          pending.set(key, (batch = { options, messages: [] }))
        }
        batch.messages.push(...request.getProposedMessagesList())
        if (!request.getIsFinal()) return
        pending.delete(key)
        stats.batchAppends++
        call.write(batchAppendResponse(correlation, batch.options, batch.messages))
      })
      call.on('end', () => call.end())
      call.on('error', () => pending.clear())
    },
  }

  function batchAppendResponse(
    correlation: UUIDT | undefined,
    options: InstanceType<typeof BatchAppendReq.Options>,
    messages: ProposedMessage[],
  ): BatchAppendRespT {
    const response = new BatchAppendResp()
    if (correlation) response.setCorrelationId(correlation)
    response.setStreamIdentifier(options.getStreamIdentifier())
    switch (options.getExpectedStreamPositionCase()) {
      case BatchAppendReq.Options.ExpectedStreamPositionCase.STREAM_POSITION:
        response.setStreamPosition(options.getStreamPosition())
        break
      case BatchAppendReq.Options.ExpectedStreamPositionCase.NO_STREAM:
        response.setNoStream(new emptyPb.Empty())
        break
      case BatchAppendReq.Options.ExpectedStreamPositionCase.STREAM_EXISTS:
        response.setStreamExists(new emptyPb.Empty())
        break
      default:
        response.setAny(new emptyPb.Empty())
    }
    const deadline = options.getDeadline()?.toDate()
    if (deadline && deadline.getTime() < Date.now()) {
      response.setError(rpcStatus(codePb.Code.DEADLINE_EXCEEDED, 'Timeout', 'event_store.client.Timeout', new sharedPb.Timeout()))
      return response
    }
    const invalid = validate(messages, maxAppendSize)
    if (invalid?.metadata.get('exception')[0] === 'maximum-append-size-exceeded') {
      const tooBig = new sharedPb.MaximumAppendSizeExceeded()
      tooBig.setMaxappendsize(maxAppendSize)
      response.setError(rpcStatus(codePb.Code.INVALID_ARGUMENT, invalid.details, 'event_store.client.MaximumAppendSizeExceeded', tooBig))
      return response
    }
    if (invalid) {
      const badRequest = new sharedPb.BadRequest()
      badRequest.setMessage(invalid.details)
      response.setError(rpcStatus(codePb.Code.INVALID_ARGUMENT, invalid.details, 'event_store.client.BadRequest', badRequest))
      return response
    }
    const expected = batchExpectation(options)
    const outcome = log.append(streamName(options.getStreamIdentifier()), expected, messages.map(toProposed))
    if (outcome.kind === 'wrong_expected_version') {
      const details = new sharedPb.WrongExpectedVersion()
      if (outcome.currentRevision < 0n) details.setCurrentNoStream(new emptyPb.Empty())
      else details.setCurrentStreamRevision(outcome.currentRevision.toString())
      switch (expected.kind) {
        case 'revision':
          details.setExpectedStreamPosition(expected.revision.toString())
          break
        case 'no_stream':
          details.setExpectedNoStream(new emptyPb.Empty())
          break
        case 'stream_exists':
          details.setExpectedStreamExists(new emptyPb.Empty())
          break
        default:
          details.setExpectedAny(new emptyPb.Empty())
      }
      response.setError(rpcStatus(codePb.Code.FAILED_PRECONDITION, 'Wrong expected version', 'event_store.client.WrongExpectedVersion', details))
      return response
    }
    const success = new BatchAppendResp.Success()
    if (outcome.currentRevision < 0n) success.setNoStream(new emptyPb.Empty())
    else success.setCurrentRevision(outcome.currentRevision.toString())
    if (outcome.position === null) success.setNoPosition(new emptyPb.Empty())
    else {
      const position = new sharedPb.AllStreamPosition()
      position.setCommitPosition(outcome.position.toString())
      position.setPreparePosition(outcome.position.toString())
      success.setPosition(position)
    }
    response.setSuccess(success)
    return response
  }

  function readStream(call: grpc.ServerWritableStream<ReadReqT, ReadRespT>, options: InstanceType<typeof ReadReq.Options>, structured: boolean): void {
    const streamOptions = options.getStream() as InstanceType<typeof ReadReq.Options.StreamOptions>
    const stream = streamName(streamOptions.getStreamIdentifier())
    const from =
      streamOptions.getRevisionOptionCase() === ReadReq.Options.StreamOptions.RevisionOptionCase.REVISION
        ? BigInt(streamOptions.getRevision())
        : streamOptions.hasEnd()
          ? 'end'
          : 'start'
    const direction = options.getReadDirection() === ReadReq.Options.ReadDirection.BACKWARDS ? 'backwards' : 'forwards'
    const events = log.readStream(stream, from, direction, BigInt(options.getCount() || '0'))
    if (events === null) {
      const notFound = new ReadResp.StreamNotFound()
      notFound.setStreamIdentifier(streamOptions.getStreamIdentifier())
      const response = new ReadResp()
      response.setStreamNotFound(notFound)
      call.write(response)
    } else {
      for (const event of events) call.write(eventResponse(event, structured))
    }
    call.end()
  }

  function readAll(call: grpc.ServerWritableStream<ReadReqT, ReadRespT>, options: InstanceType<typeof ReadReq.Options>, structured: boolean): void {
    const direction = options.getReadDirection() === ReadReq.Options.ReadDirection.BACKWARDS ? 'backwards' : 'forwards'
    const { filter } = parseFilter(options)
    const events = log.readAll(allFrom(options), direction, BigInt(options.getCount() || '0'), filter)
    for (const event of events) call.write(eventResponse(event, structured))
    call.end()
  }

  function subscribeToAll(call: grpc.ServerWritableStream<ReadReqT, ReadRespT>, options: InstanceType<typeof ReadReq.Options>, structured: boolean): void {
    const from = allFrom(options)
    // Exclusive of its start position; validated like a read.
    let cursor = from === 'start' ? 0 : from === 'end' ? log.recordCount : log.indexOf(from, 'forwards')
    if (typeof from === 'bigint' && log.recordAt(cursor)?.position === from) cursor++
    stats.subscriptions++
    const subscription = new LiveSubscription(call, cursor, parseFilter(options), structured, () => held, log)
    subscriptions.add(subscription)
    stats.activeSubscriptions = subscriptions.size
    const forget = () => {
      subscription.closed = true
      subscriptions.delete(subscription)
      stats.activeSubscriptions = subscriptions.size
    }
    call.on('cancelled', forget)
    call.on('close', forget)
    call.on('error', forget)
    const confirmation = new ReadResp.SubscriptionConfirmation()
    confirmation.setSubscriptionId(randomUUID())
    const response = new ReadResp()
    response.setConfirmation(confirmation)
    call.write(response)
    subscription.pump()
  }

  const serverFeatures: grpc.UntypedServiceImplementation = {
    getSupportedMethods(_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) {
      const supported = new serverFeaturesPb.SupportedMethods()
      supported.setEventStoreServerVersion(DOUBLE_SERVER_VERSION)
      const methods = ['Read', 'Append', ...(options.batchAppend === false ? [] : ['BatchAppend'])]
      supported.setMethodsList(
        methods.map((name) => {
          const method = new serverFeaturesPb.SupportedMethod()
          method.setServiceName('event_store.client.streams.Streams')
          method.setMethodName(name)
          if (name === 'Read') method.setFeaturesList(['position', 'events'])
          return method
        }),
      )
      callback(null, supported)
    },
  }

  let server = await listen(options.port ?? 0)
  const port = server.port
  let statsTimer: NodeJS.Timeout | undefined
  if ((options.systemEventIntervalMs ?? 0) > 0) {
    statsTimer = setInterval(() => log.writeSystemEvent('$stats-127.0.0.1:2113', '$statistics-collected', { at: new Date().toISOString() }), options.systemEventIntervalMs)
    statsTimer.unref()
  }

  async function listen(requestedPort: number): Promise<{ server: grpc.Server; port: number }> {
    const grpcServer = new grpc.Server()
    // grpc-js leaves Nagle's algorithm on for accepted connections, so every new call waits on the
    // client's delayed ACK (~10 ms on loopback). EventStoreDB (Kestrel) sets TCP_NODELAY; so do we,
    // through the options grpc-js hands to http2.createServer (private, hence the cast).
    const common = (grpcServer as unknown as { commonServerOptions?: Record<string, unknown> }).commonServerOptions
    if (common) common.noDelay = true
    grpcServer.addService(StreamsService as unknown as grpc.ServiceDefinition, streams)
    grpcServer.addService(ServerFeaturesService as unknown as grpc.ServiceDefinition, serverFeatures)
    const boundPort = await new Promise<number>((resolve, reject) =>
      grpcServer.bindAsync(`127.0.0.1:${requestedPort}`, grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    )
    return { server: grpcServer, port: boundPort }
  }

  function dropEverything(): void {
    for (const subscription of subscriptions) subscription.closed = true
    subscriptions.clear()
    stats.activeSubscriptions = 0
    server.server.forceShutdown()
  }

  return {
    url: `esdb://127.0.0.1:${port}?tls=false`,
    port,
    log,
    stats,
    hold() {
      held = true
    },
    release() {
      held = false
      for (const subscription of subscriptions) subscription.pump()
    },
    async restart() {
      dropEverything()
      server = await listen(port)
    },
    async close() {
      if (statsTimer) clearInterval(statsTimer)
      dropEverything()
    },
  }
}

/** One $all subscription: walks the log from its cursor, catch-up then live, as fast as the client reads. */
class LiveSubscription {
  closed = false
  private caughtUp = false
  private waitingForDrain = false
  private scannedSinceCheckpoint = 0

  constructor(
    private readonly call: grpc.ServerWritableStream<ReadReqT, ReadRespT>,
    private cursor: number,
    private readonly filtering: { filter: LogFilter | null; checkpointEvery: number },
    private readonly structured: boolean,
    private readonly isHeld: () => boolean,
    private readonly log: EsdbLog,
  ) {}

  pump(): void {
    if (this.closed || this.waitingForDrain || this.isHeld()) return
    const { filter, checkpointEvery } = this.filtering
    while (this.cursor < this.log.recordCount) {
      const record = this.log.recordAt(this.cursor++) as { position: bigint; event: StoredEvent | null }
      let writable = true
      if (record.event && matches(filter, record.event)) writable = this.call.write(eventResponse(record.event, this.structured))
      if (filter !== null && ++this.scannedSinceCheckpoint >= checkpointEvery) {
        this.scannedSinceCheckpoint = 0
        const checkpoint = new ReadResp.Checkpoint()
        checkpoint.setCommitPosition(record.position.toString())
        checkpoint.setPreparePosition(record.position.toString())
        const response = new ReadResp()
        response.setCheckpoint(checkpoint)
        writable = this.call.write(response) && writable
      }
      if (!writable) {
        this.waitingForDrain = true
        this.call.once('drain', () => {
          this.waitingForDrain = false
          this.pump()
        })
        return
      }
      if (this.isHeld()) return
    }
    if (!this.caughtUp) {
      this.caughtUp = true
      const response = new ReadResp()
      response.setCaughtUp(new ReadResp.CaughtUp())
      this.call.write(response)
    }
  }
}

function fail(call: grpc.ServerWritableStream<ReadReqT, ReadRespT>, code: grpc.status, details: string): void {
  call.emit('error', { code, details, metadata: new grpc.Metadata() })
}

function rpcStatus(code: number, message: string, typeName: string, details: { serializeBinary(): Uint8Array }): InstanceType<typeof statusPb.Status> {
  const status = new statusPb.Status()
  status.setCode(code)
  status.setMessage(message)
  const packed = new anyPb.Any()
  packed.pack(details.serializeBinary(), typeName)
  status.setDetails(packed)
  return status
}

function streamName(identifier: InstanceType<typeof sharedPb.StreamIdentifier> | undefined): string {
  return Buffer.from(identifier?.getStreamName_asU8() ?? new Uint8Array()).toString('utf8')
}

function allFrom(options: InstanceType<typeof ReadReq.Options>): bigint | 'start' | 'end' {
  const all = options.getAll()
  if (!all || all.hasStart()) return 'start'
  if (all.hasEnd()) return 'end'
  const position = all.getPosition()
  return position ? BigInt(position.getCommitPosition()) : 'start'
}

function parseFilter(options: InstanceType<typeof ReadReq.Options>): { filter: LogFilter | null; checkpointEvery: number } {
  const filterOptions = options.getFilter()
  if (!options.hasFilter() || !filterOptions) return { filter: null, checkpointEvery: Number.POSITIVE_INFINITY }
  const onStream = filterOptions.hasStreamIdentifier()
  const expression = onStream ? filterOptions.getStreamIdentifier() : filterOptions.getEventType()
  const regex = expression?.getRegex() ?? ''
  const window = filterOptions.hasMax() ? filterOptions.getMax() : DEFAULT_FILTER_WINDOW
  return {
    filter: {
      on: onStream ? 'stream' : 'event_type',
      prefixes: expression?.getPrefixList() ?? [],
      regex: regex === '' ? null : new RegExp(regex),
    },
    checkpointEvery: Math.max(1, window * Math.max(1, filterOptions.getCheckpointintervalmultiplier())),
  }
}

function appendExpectation(options: InstanceType<typeof AppendReq.Options>): Expectation {
  switch (options.getExpectedStreamRevisionCase()) {
    case AppendReq.Options.ExpectedStreamRevisionCase.REVISION:
      return { kind: 'revision', revision: BigInt(options.getRevision()) }
    case AppendReq.Options.ExpectedStreamRevisionCase.NO_STREAM:
      return { kind: 'no_stream' }
    case AppendReq.Options.ExpectedStreamRevisionCase.STREAM_EXISTS:
      return { kind: 'stream_exists' }
    default:
      return { kind: 'any' }
  }
}

function batchExpectation(options: InstanceType<typeof BatchAppendReq.Options>): Expectation {
  switch (options.getExpectedStreamPositionCase()) {
    case BatchAppendReq.Options.ExpectedStreamPositionCase.STREAM_POSITION:
      return { kind: 'revision', revision: BigInt(options.getStreamPosition()) }
    case BatchAppendReq.Options.ExpectedStreamPositionCase.NO_STREAM:
      return { kind: 'no_stream' }
    case BatchAppendReq.Options.ExpectedStreamPositionCase.STREAM_EXISTS:
      return { kind: 'stream_exists' }
    default:
      return { kind: 'any' }
  }
}

function appendResponse(outcome: AppendOutcome): AppendRespT {
  const response = new AppendResp()
  if (outcome.kind === 'wrong_expected_version') {
    const wrong = new AppendResp.WrongExpectedVersion()
    if (outcome.currentRevision < 0n) wrong.setCurrentNoStream(new sharedPb.Empty())
    else wrong.setCurrentRevision(outcome.currentRevision.toString())
    const expected = outcome.expected
    if (expected.kind === 'revision') wrong.setExpectedRevision(expected.revision.toString())
    else if (expected.kind === 'no_stream') wrong.setExpectedNoStream(new sharedPb.Empty())
    else if (expected.kind === 'stream_exists') wrong.setExpectedStreamExists(new sharedPb.Empty())
    else wrong.setExpectedAny(new sharedPb.Empty())
    response.setWrongExpectedVersion(wrong)
    return response
  }
  const success = new AppendResp.Success()
  if (outcome.currentRevision < 0n) success.setNoStream(new sharedPb.Empty())
  else success.setCurrentRevision(outcome.currentRevision.toString())
  if (outcome.position === null) success.setNoPosition(new sharedPb.Empty())
  else {
    const position = new AppendResp.Position()
    position.setCommitPosition(outcome.position.toString())
    position.setPreparePosition(outcome.position.toString())
    success.setPosition(position)
  }
  response.setSuccess(success)
  return response
}

/** Checks what the server checks before writing: required metadata, and the total size of the append. */
function validate(messages: readonly ProposedMessage[], maxAppendSize: number): grpc.ServiceError | null {
  let size = 0
  for (const message of messages) {
    const metadata = message.getMetadataMap()
    for (const key of ['type', 'content-type']) {
      if (!metadata.get(key)) return serviceError(grpc.status.INVALID_ARGUMENT, `Required Metadata Property '${key}' is missing`, 'missing-required-metadata-property')
    }
    size += message.serializeBinary().length
  }
  if (size > maxAppendSize) return serviceError(grpc.status.INVALID_ARGUMENT, `Maximum Append Size of ${maxAppendSize} Exceeded.`, 'maximum-append-size-exceeded')
  return null
}

function serviceError(code: grpc.status, details: string, exception: string): grpc.ServiceError {
  const metadata = new grpc.Metadata()
  metadata.set('exception', exception)
  return Object.assign(new Error(details), { code, details, metadata })
}

function toProposed(message: ProposedMessage): ProposedEvent {
  const metadata = message.getMetadataMap()
  const id = message.getId()
  return {
    id: id ? uuidString(id) : randomUUID(),
    type: metadata.get('type') ?? '',
    contentType: metadata.get('content-type') ?? 'application/octet-stream',
    data: message.getData_asU8(),
    customMetadata: message.getCustomMetadata_asU8(),
  }
}

function uuidString(uuid: UUIDT): string {
  if (uuid.hasStructured()) {
    const structured = uuid.getStructured() as InstanceType<typeof sharedPb.UUID.Structured>
    const hex =
      BigInt.asUintN(64, BigInt(structured.getMostSignificantBits())).toString(16).padStart(16, '0') +
      BigInt.asUintN(64, BigInt(structured.getLeastSignificantBits())).toString(16).padStart(16, '0')
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  }
  return uuid.getString().toLowerCase()
}

function uuidMessage(id: string, structured: boolean): UUIDT {
  const uuid = new sharedPb.UUID()
  if (!structured) {
    uuid.setString(id)
    return uuid
  }
  const hex = id.replace(/-/g, '')
  const parts = new sharedPb.UUID.Structured()
  parts.setMostSignificantBits(BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`)).toString())
  parts.setLeastSignificantBits(BigInt.asIntN(64, BigInt(`0x${hex.slice(16)}`)).toString())
  uuid.setStructured(parts)
  return uuid
}

function eventResponse(event: StoredEvent, structured: boolean): ReadRespT {
  const recorded = new ReadResp.ReadEvent.RecordedEvent()
  recorded.setId(uuidMessage(event.id, structured))
  const identifier = new sharedPb.StreamIdentifier()
  identifier.setStreamName(Buffer.from(event.stream, 'utf8'))
  recorded.setStreamIdentifier(identifier)
  recorded.setStreamRevision(event.revision.toString())
  recorded.setCommitPosition(event.position.toString())
  recorded.setPreparePosition(event.position.toString())
  const metadata = recorded.getMetadataMap()
  metadata.set('type', event.type)
  metadata.set('content-type', event.contentType)
  metadata.set('created', event.created.toString())
  recorded.setCustomMetadata(event.customMetadata)
  recorded.setData(event.data)
  const read = new ReadResp.ReadEvent()
  read.setEvent(recorded)
  read.setCommitPosition(event.position.toString())
  const response = new ReadResp()
  response.setEvent(read)
  return response
}
