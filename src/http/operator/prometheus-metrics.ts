/**
 * What `/metrics` answers, in the Prometheus text format: this process's requests per route, what
 * it appended (leads received, calls decided, placed and failed, speed to lead), how far its read
 * models and process managers trail the log, and prom-client's process metrics (memory, CPU, GC,
 * event-loop delay). One registry per app, never prom-client's global one. Counts are this node's:
 * sum them across nodes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { LeadState } from '../../domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../domain/lead/lead.events.ts'
import type { Appended } from '../../eventstore/command-handler.ts'
import type { Leadline } from '../../leadline.ts'

export class PrometheusMetrics {
  readonly registry = new Registry()
  private readonly requests: Counter<'method' | 'route' | 'status'>
  private readonly requestSeconds: Histogram<'method' | 'route' | 'status'>
  private readonly leadsReceived: Counter<'kind'>
  private readonly callsDecided: Counter<'purpose'>
  private readonly callsPlaced: Counter<'purpose'>
  private readonly callsFailed: Counter<'purpose' | 'failure'>
  private readonly speedToLead: Histogram
  private readonly stopObserving: () => void

  constructor(leadline: Leadline) {
    const registers = [this.registry]
    // Event-loop delay (nodejs_eventloop_lag_*) is measured with monitorEventLoopDelay and reset at every scrape.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 10 })
    this.requests = new Counter({ name: 'leadline_http_requests_total', help: 'HTTP requests answered, by route pattern (never the raw URL) and status.', labelNames: ['method', 'route', 'status'], registers })
    this.requestSeconds = new Histogram({
      name: 'leadline_http_request_duration_seconds', help: 'Time from a request\'s arrival to its answer, by route pattern and status.', labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers,
    })
    this.leadsReceived = new Counter({ name: 'leadline_leads_received_total', help: 'Leads this node recorded: kind="new" for a new person, "repeat" for an update of one already known.', labelNames: ['kind'], registers })
    this.callsDecided = new Counter({ name: 'leadline_calls_decided_total', help: 'Call decisions this node appended, by purpose (speed_to_lead, follow_up, place_call).', labelNames: ['purpose'], registers })
    this.callsPlaced = new Counter({ name: 'leadline_calls_placed_total', help: 'Calls the carrier accepted from this node.', labelNames: ['purpose'], registers })
    this.callsFailed = new Counter({ name: 'leadline_calls_failed_total', help: 'Calls this node could not place, by failure (unknown_outcome: the carrier may have rung; never retried).', labelNames: ['purpose', 'failure'], registers })
    this.speedToLead = new Histogram({
      name: 'leadline_speed_to_lead_seconds', help: 'Speed to lead: from the lead\'s arrival to the carrier request for its call.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300], registers,
    })
    const { store, runner } = leadline
    new Gauge({
      name: 'leadline_read_models_lag_events', help: 'Positions on the log the read models have not applied yet (head minus their lowest checkpoint).', registers,
      async collect() {
        this.set(Math.max(0, (await store.headPosition()) - runner.lowestCheckpoint()))
      },
    })
    new Gauge({
      name: 'leadline_process_runner_lag_events', help: 'Positions on the log the process managers (the dialer) have not finished (head minus their checkpoint).', registers,
      async collect() {
        const head = await store.headPosition()
        this.set(Math.max(0, head - (leadline.processesCheckpoint() ?? head)))
      },
    })
    this.stopObserving = leadline.commands.observe((appended) => this.count(appended))
  }

  /** Counts and times one answered request (an onResponse hook). */
  observeRequest(request: FastifyRequest, reply: FastifyReply): void {
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) }
    this.requests.inc(labels)
    this.requestSeconds.observe(labels, reply.elapsedTime / 1000)
  }

  private count({ stream, events, state }: Appended): void {
    if (!stream.startsWith('lead-')) return
    const lead = state as LeadState
    for (const event of events as readonly LeadEvent[]) {
      switch (event.type) {
        case 'LeadReceived':
          this.leadsReceived.inc({ kind: 'new' })
          break
        case 'LeadUpdated':
          this.leadsReceived.inc({ kind: 'repeat' })
          break
        case 'CallDecided':
          this.callsDecided.inc({ purpose: event.data.purpose })
          break
        case 'CallAttemptStarted': {
          // Recorded just before the carrier is asked: this is the carrier request's moment.
          const call = lead.dialing.calls[event.data.decisionId]
          if (call?.purpose === 'speed_to_lead') this.speedToLead.observe(Math.max(0, Date.parse(event.data.startedAt) - Date.parse(call.decidedAt)) / 1000)
          break
        }
        case 'CallPlaced':
          this.callsPlaced.inc({ purpose: lead.dialing.calls[event.data.decisionId]?.purpose ?? 'unknown' })
          break
        case 'CallFailed':
          this.callsFailed.inc({ purpose: lead.dialing.calls[event.data.decisionId]?.purpose ?? 'unknown', failure: event.data.failure })
          break
        case 'CallOutcomeUnknown':
          this.callsFailed.inc({ purpose: lead.dialing.calls[event.data.decisionId]?.purpose ?? 'unknown', failure: 'unknown_outcome' })
          break
      }
    }
  }

  close(): void {
    this.stopObserving()
    this.registry.clear()
  }
}
