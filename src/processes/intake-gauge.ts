/**
 * How many requests the server is serving at this moment: the HTTP layer counts each in when it
 * arrives and out when its response is finished or abandoned. Background work that yields to intake
 * asks it, so that a loop kept busy by that work itself (a backlog draining) is not taken for a flood.
 */
export class IntakeGauge {
  private inFlight = 0

  started(): void {
    this.inFlight++
  }

  ended(): void {
    if (this.inFlight > 0) this.inFlight--
  }

  get serving(): number {
    return this.inFlight
  }
}
