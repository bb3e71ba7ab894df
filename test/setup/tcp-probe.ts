import { connect } from 'node:net';

/** Whether something on 127.0.0.1 accepts a TCP connection on `port` now (the socket is closed at once). */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
