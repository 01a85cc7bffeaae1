/**
 * A FIFO async mutex: a chain of promises, so waiting costs no timers or polling.
 * @module
 */
export class Mutex {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` once every earlier task has settled; its failure does not block later ones. */
  run<T>(task: () => T | Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.then(ignore, ignore);
    return result;
  }
}

function ignore(): void {}
