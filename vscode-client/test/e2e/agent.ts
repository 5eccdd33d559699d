/** A minimal agent: JSON-RPC with LSP framing over the server's agent endpoint socket. */

import { createConnection, type Socket } from "node:net";

interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

/** A JSON-RPC message from the server: a response has an id and no method. */
interface Message {
  id?: unknown;
  method?: string;
  result?: unknown;
  error?: { code: number; message: string };
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export class AgentConnection {
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk) => this.receive(chunk));
    socket.on("close", () => {
      for (const { reject } of this.pending.values()) reject(new Error("agent connection closed"));
      this.pending.clear();
    });
  }

  static connect(socketPath: string): Promise<AgentConnection> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(socketPath);
      socket.once("connect", () => resolve(new AgentConnection(socket)));
      socket.once("error", reject);
    });
  }

  request<T>(method: string, params: object = {}): Promise<T> {
    const id = this.nextId++;
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method, params }), "utf8");
    this.socket.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.socket.write(body);
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: (result) => resolve(result as T), reject });
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf("\r\n\r\n");
      if (headerEnd < 0) return;
      const header = this.buffer.subarray(0, headerEnd).toString("ascii");
      const length = Number(/Content-Length:\s*(\d+)/i.exec(header)?.[1]);
      if (!Number.isFinite(length)) throw new Error(`bad header: ${header}`);
      const start = headerEnd + 4;
      if (this.buffer.length < start + length) return;
      const message = JSON.parse(
        this.buffer.subarray(start, start + length).toString("utf8"),
      ) as Message;
      this.buffer = this.buffer.subarray(start + length);
      if (
        typeof message.id === "number" &&
        this.pending.has(message.id) &&
        !("method" in message)
      ) {
        const { resolve, reject } = this.pending.get(message.id)!;
        this.pending.delete(message.id);
        if (message.error) reject(new RpcError(message.error.code, message.error.message));
        else resolve(message.result);
      }
    }
  }
}
