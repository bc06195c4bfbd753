// The owner's runtime servers and paired machines as this session last read them from
// their account, with the version that changes with them: a read asks against the
// known version, so an unchanged list costs no transfer, and a turn's read can ride on
// its admission (prefetch).
import type { RemoteServerConfig } from "../../shared/mcp-config/config";
import { errorMessage } from "../../shared/logger";
import type { MachineView } from "../../machines/machine-store";
import type { UserServers } from "./deps";

/** A read that found the owner's servers changed. */
export interface OwnerServersChange {
  first: boolean;
  servers: RemoteServerConfig[];
  machines: MachineView[];
  /** The list before this read (undefined on the first). */
  previous?: RemoteServerConfig[];
  machinesChanged: boolean;
}

export class OwnerServers {
  private known?: string;
  /** A read started early (see prefetch), with the version it was asked against. */
  private prefetched?: { known?: string; read: Promise<UserServers> };
  private list?: RemoteServerConfig[];
  /** The owner's machines as last read: one coming or going rebuilds the connections. */
  private machineKey?: string;

  constructor(
    private readonly read: (known?: string) => Promise<UserServers>,
    private readonly notice: (text: string) => void,
  ) {}

  /** The version last read (undefined before the first read). */
  get version(): string | undefined {
    return this.known;
  }

  /** One of the owner's own runtime servers (not the deployment's). */
  owns(server: RemoteServerConfig): boolean {
    return this.list?.some((s) => s.name === server.name && s.url === server.url) ?? false;
  }

  /** A read for the next sync, asked against the version known now. */
  prefetch(read: Promise<UserServers>): void {
    read.catch(() => undefined); // a failure is reported by the sync that uses it
    this.prefetched = { known: this.known, read };
  }

  /** Reads the owner's servers; what changed, or undefined when nothing did. An unreadable list counts as none, said once. */
  async sync(): Promise<OwnerServersChange | undefined> {
    let user: UserServers;
    const early = this.prefetched?.known === this.known ? this.prefetched?.read : undefined;
    this.prefetched = undefined;
    try {
      user = await (early ?? this.read(this.known));
    } catch (error) {
      this.notice(`Your own MCP servers could not be read (${errorMessage(error)}); the deployment's servers serve.`);
      user = { version: this.known ?? "unreadable", servers: [] };
    }
    if (user.version === this.known || !user.servers) return undefined;
    const first = this.known === undefined;
    this.known = user.version;
    const previous = this.list;
    this.list = user.servers;
    const machineKey = JSON.stringify(user.machines ?? []);
    const machinesChanged = machineKey !== this.machineKey;
    this.machineKey = machineKey;
    return { first, servers: user.servers, machines: user.machines ?? [], previous, machinesChanged };
  }
}
