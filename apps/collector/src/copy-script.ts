/**
 * The rest of a write transaction in one round trip: a simple-protocol query of several
 * statements, some of them `COPY ... FROM STDIN`, sent together with the data of every COPY.
 * Postgres runs the statements in order and reads each COPY's data when it gets there; a
 * failing statement ends the query, and Postgres skips the COPY data still on its way (the
 * protocol says to ignore copy messages outside a COPY). Used with node-postgres as a
 * Submittable, the way pg-copy-streams is, but for many COPYs and no waiting between them.
 */
import type pg from 'pg';

interface Connection {
  stream: { write(b: Uint8Array): boolean; cork(): void; uncork(): void };
  query(text: string): void;
}

// CopyDone: 'c', length 4.
const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]);

class CopyScript implements pg.Submittable {
  /** Settles when the server is ready for the next query: resolved when every statement ran. */
  readonly done: Promise<void>;
  private resolve!: () => void;
  private reject!: (err: unknown) => void;
  private copies = 0;
  private failed = false;

  /**
   * @param sql statements separated by `;`, with as many `COPY ... FROM STDIN` as `data` has entries
   * @param data each COPY's text, in statement order, as chunks
   */
  constructor(
    private readonly sql: string,
    private readonly data: readonly (readonly Buffer[])[],
  ) {
    this.done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection: unknown): void {
    const c = connection as Connection;
    c.stream.cork();
    c.query(this.sql);
    for (const chunks of this.data) {
      for (const chunk of chunks) {
        // CopyData: 'd', then the length of the message (itself included, not its type).
        const head = Buffer.allocUnsafe(5);
        head[0] = 0x64;
        head.writeUInt32BE(chunk.length + 4, 1);
        c.stream.write(head);
        c.stream.write(chunk);
      }
      c.stream.write(COPY_DONE);
    }
    c.stream.uncork();
  }

  handleCopyInResponse(): void {
    this.copies++;
  }

  handleError(err: unknown): void {
    this.failed = true;
    this.reject(err);
  }

  handleReadyForQuery(): void {
    if (this.failed) return;
    if (this.copies === this.data.length) this.resolve();
    else this.reject(new Error(`expected ${this.data.length} COPY statements, the server ran ${this.copies}`));
  }

  // Rows and completions of the other statements are not needed.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

/** Run a CopyScript on a client. */
export function runCopyScript(client: pg.PoolClient, sql: string, data: readonly (readonly Buffer[])[]): Promise<void> {
  return client.query(new CopyScript(sql, data)).done;
}
