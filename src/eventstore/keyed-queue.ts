/** Runs tasks one at a time per key, in arrival order; tasks on different keys run concurrently. */
export class KeyedQueue {
  private readonly lanes = new Map<string, { tail: Promise<unknown>; pending: number }>()

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const lane = this.lanes.get(key)
    let result: Promise<T>
    if (lane === undefined) {
      // Nothing queued on this key (the usual case): start at once, without a link to wait on.
      result = start(task)
      this.lanes.set(key, { tail: result, pending: 1 })
    } else {
      result = lane.tail.then(task, task)
      lane.tail = result
      lane.pending++
    }
    // Forget the key once its queue drains, so the map stays as small as the work in flight.
    const done = (): void => {
      const current = this.lanes.get(key)
      if (current !== undefined && --current.pending === 0) this.lanes.delete(key)
    }
    result.then(done, done)
    return result
  }

  get size(): number {
    return this.lanes.size
  }
}

function start<T>(task: () => Promise<T>): Promise<T> {
  try {
    return task()
  } catch (error) {
    return Promise.reject(error)
  }
}
