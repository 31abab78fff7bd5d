/**
 * @module A loopback listener that records how each connection starts: a TLS ClientHello (and the SNI it
 * names) or anything else (plain HTTP), then closes it. It shows what the Worker sent an endpoint without
 * a certificate the Worker's roots would trust, which a test cannot have.
 */
import { createServer, type Server } from "node:net";

export interface Opening {
  tls: boolean;
  /** The server_name of the ClientHello, when it has one. */
  serverName?: string;
  /** The first bytes as text, when they are not TLS (e.g. `GET / HTTP/1.1`). */
  text?: string;
}

/** The host_name of a ClientHello's server_name extension (RFC 6066 §3), if any. */
export function serverNameOf(hello: Buffer): string | undefined {
  // record header (5) ▸ handshake header (4) ▸ version (2) ▸ random (32) ▸ session id ▸ ciphers ▸ compression ▸ extensions
  let at = 5 + 4 + 2 + 32;
  const skip = (lengthBytes: number) => {
    const length = lengthBytes === 1 ? hello[at]! : hello.readUInt16BE(at);
    at += lengthBytes + length;
  };
  skip(1);
  skip(2);
  skip(1);
  const end = at + 2 + hello.readUInt16BE(at);
  at += 2;
  while (at + 4 <= end && at + 4 <= hello.length) {
    const type = hello.readUInt16BE(at);
    const length = hello.readUInt16BE(at + 2);
    if (type === 0) {
      // server_name_list length (2) ▸ name type (1) ▸ name length (2) ▸ name
      const nameLength = hello.readUInt16BE(at + 4 + 3);
      return hello.subarray(at + 4 + 5, at + 4 + 5 + nameLength).toString("ascii");
    }
    at += 4 + length;
  }
  return undefined;
}

export interface HelloListener {
  port: number;
  openings: Opening[];
  close(): Promise<void>;
}

export function listenForHellos(): Promise<HelloListener> {
  const openings: Opening[] = [];
  const server: Server = createServer((socket) => {
    let bytes = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      if (bytes[0] === 0x16) {
        if (bytes.length < 5 || bytes.length < 5 + bytes.readUInt16BE(3)) return;
        openings.push({ tls: true, serverName: serverNameOf(bytes) });
      } else {
        openings.push({ tls: false, text: bytes.toString("latin1").split("\r\n")[0] });
      }
      socket.destroy();
    });
    socket.on("error", () => {});
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      resolve({ port, openings, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}
