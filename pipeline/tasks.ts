/**
 * Named pieces of work that run beside the code that starts them (an import's lanes: shapes.txt
 * on its own connection, stop_times.parquet written while the other tables are built, the
 * timetable prepared while the Parquet files are written).
 *
 * A Task keeps its outcome until it is awaited: its failure is thrown by `result()` where the
 * caller needs the value, never reported as "unhandled" meanwhile and never dropped. A Lanes
 * group is what its owner (the import session) waits for before closing what the tasks use:
 * `settled()` resolves once every task has finished, failed or not.
 */

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export class Task<T> {
  private readonly outcome: Promise<Outcome<T>>;

  constructor(readonly name: string, work: () => Promise<T>) {
    let running: Promise<T>;
    try {
      running = work();
    } catch (e) {
      running = Promise.reject(e);
    }
    this.outcome = running.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));
  }

  /** The task's value; its error when it failed. */
  async result(): Promise<T> {
    const o = await this.outcome;
    if (o.ok) return o.value;
    throw o.error;
  }

  /** Resolves when the task is over, whatever its outcome. */
  async settled(): Promise<void> {
    await this.outcome;
  }

  /** A task that starts when this one has succeeded, with its value (it fails with this one's error otherwise). */
  andThen<U>(name: string, next: (value: T) => Promise<U>): Task<U> {
    return new Task(name, async () => next(await this.result()));
  }
}

/** The tasks of one owner, all awaited before it closes what they use. */
export class Lanes {
  private readonly tasks: Task<unknown>[] = [];

  start<T>(name: string, work: () => Promise<T>): Task<T> {
    return this.add(new Task(name, work));
  }

  add<T>(task: Task<T>): Task<T> {
    this.tasks.push(task);
    return task;
  }

  /** Every task started so far is over (and any a finishing task started meanwhile). */
  async settled(): Promise<void> {
    for (let i = 0; i < this.tasks.length; i++) await this.tasks[i]!.settled();
  }
}
