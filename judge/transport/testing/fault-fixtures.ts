import type { JudgeTransport } from '../judge-transport.js';
import { startFaultServer, type FaultBehaviour, type FaultServer } from './fault-server.js';

/** The fault servers and transports a test file starts; `closeAll` after each test. */
export class FaultFixtures {
  private readonly servers: FaultServer[] = [];
  private readonly transports: JudgeTransport[] = [];

  /** A fault server, closed by the next closeAll. */
  readonly server = async (behaviour: Partial<FaultBehaviour> = {}): Promise<FaultServer> => {
    const s = await startFaultServer(behaviour);
    this.servers.push(s);
    return s;
  };

  /** Closes `transport` at the next closeAll (before the servers), and returns it. */
  readonly track = (transport: JudgeTransport): JudgeTransport => {
    this.transports.push(transport);
    return transport;
  };

  async closeAll(): Promise<void> {
    await Promise.all(this.transports.splice(0).map((t) => t.close()));
    await Promise.all(this.servers.splice(0).map((s) => s.close()));
  }
}
