import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { Account, type Address, bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import { createVM, type VM } from '@ethereumjs/vm';
import { BrowserProvider, type Eip1193Provider, Interface, type InterfaceAbi } from 'ethers';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import solc from 'solc';

/**
 * A real EVM in the test process (@ethereumjs/vm) with the few JSON-RPC methods an ethers reader
 * needs (eth_chainId, eth_blockNumber, eth_call), as an EIP-1193 provider and, for code that takes
 * an RPC URL, over HTTP on 127.0.0.1. Contracts are compiled from MockAggregator.sol by solcjs at
 * test time, deployed and driven by calls straight into the VM.
 */
export class TestChain {
  private server?: Server;

  private constructor(
    readonly chainId: number,
    private readonly vm: VM,
  ) {}

  static async start(chainId: number): Promise<TestChain> {
    const common = createCustomCommon({ chainId }, Mainnet, { hardfork: Hardfork.Cancun });
    return new TestChain(chainId, await createVM({ common }));
  }

  /** An ethers provider over the VM, in process. */
  provider(): BrowserProvider {
    return new BrowserProvider(this.eip1193(), this.chainId);
  }

  eip1193(): Eip1193Provider {
    return { request: ({ method, params }) => this.rpc(method, (params ?? []) as unknown[]) };
  }

  async rpc(method: string, params: unknown[]): Promise<unknown> {
    switch (method) {
      case 'eth_chainId':
        return `0x${this.chainId.toString(16)}`;
      case 'eth_blockNumber':
        return '0x0';
      case 'eth_call':
        return this.call(params[0] as { to?: string; data?: string });
      default:
        throw Object.assign(new Error(`method ${method} not supported`), { code: -32601 });
    }
  }

  /** Serves JSON-RPC (single and batched requests) on 127.0.0.1; returns the URL. */
  async serve(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        void this.answer(JSON.parse(body) as RpcRequest | RpcRequest[]).then((reply) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(reply));
        });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    if (this.server) await new Promise((resolve) => this.server!.close(resolve));
  }

  async deployAggregator(decimals: number): Promise<MockAggregator> {
    const { abi, bytecode } = compiled().MockAggregator!;
    const iface = new Interface(abi);
    const address = await this.deploy(bytecode + iface.encodeDeploy([decimals]).slice(2));
    return new MockAggregator(address, iface, (data) => this.transact(address, data));
  }

  /** A contract that is not an aggregator. */
  async deployOther(): Promise<string> {
    return this.deploy(compiled().NotAnAggregator!.bytecode);
  }

  private readonly deployer = createAddressFromString(`0x${'d0'.repeat(20)}`);
  private deploys = 0n;

  private async deploy(initCode: string): Promise<string> {
    // runCall does not bump the caller's nonce: set it, so each deployment gets its own address.
    const account = (await this.vm.stateManager.getAccount(this.deployer)) ?? new Account();
    account.nonce = this.deploys++;
    await this.vm.stateManager.putAccount(this.deployer, account);
    const r = await this.vm.evm.runCall({
      caller: this.deployer,
      data: hexToBytes(initCode as `0x${string}`),
      gasLimit: 10_000_000n,
    });
    if (r.execResult.exceptionError || !r.createdAddress)
      throw new Error(`deployment failed: ${r.execResult.exceptionError?.error}`);
    return r.createdAddress.toString();
  }

  private async transact(to: string, data: string): Promise<void> {
    const r = await this.vm.evm.runCall({
      caller: this.deployer,
      to: address(to),
      data: hexToBytes(data as `0x${string}`),
      gasLimit: 1_000_000n,
    });
    if (r.execResult.exceptionError)
      throw new Error(`transaction reverted: ${r.execResult.exceptionError.error}`);
  }

  /** eth_call: runs on a checkpoint that is reverted afterwards; a revert answers code 3 with its data. */
  private async call(tx: { to?: string; data?: string }): Promise<string> {
    await this.vm.stateManager.checkpoint();
    try {
      const r = await this.vm.evm.runCall({
        caller: this.deployer,
        to: tx.to ? address(tx.to) : undefined,
        data: hexToBytes((tx.data ?? '0x') as `0x${string}`),
        gasLimit: 10_000_000n,
      });
      if (r.execResult.exceptionError)
        throw Object.assign(new Error('execution reverted'), {
          code: 3,
          data: bytesToHex(r.execResult.returnValue),
        });
      return bytesToHex(r.execResult.returnValue);
    } finally {
      await this.vm.stateManager.revert();
    }
  }

  private async answer(request: RpcRequest | RpcRequest[]): Promise<unknown> {
    if (Array.isArray(request)) return Promise.all(request.map((r) => this.answer(r)));
    try {
      return { jsonrpc: '2.0', id: request.id, result: await this.rpc(request.method, request.params ?? []) };
    } catch (e) {
      const { code = -32000, message, data } = e as { code?: number; message: string; data?: string };
      return { jsonrpc: '2.0', id: request.id, error: { code, message, data } };
    }
  }
}

interface RpcRequest {
  id: number | string;
  method: string;
  params?: unknown[];
}

/** A deployed MockAggregator: a test sets its rounds and makes it fail. */
export class MockAggregator {
  constructor(
    readonly address: string,
    private readonly iface: Interface,
    private readonly transact: (data: string) => Promise<void>,
  ) {}

  setRound(roundId: bigint | number, answer: bigint, updatedAtSeconds: bigint | number): Promise<void> {
    return this.transact(this.iface.encodeFunctionData('setRound', [roundId, answer, updatedAtSeconds]));
  }

  setFailing(failing: boolean): Promise<void> {
    return this.transact(this.iface.encodeFunctionData('setFailing', [failing]));
  }
}

const address = (hex: string): Address => createAddressFromString(hex);

interface Artifact {
  abi: InterfaceAbi;
  bytecode: string;
}
let artifacts: Record<string, Artifact> | undefined;

/** Compiles MockAggregator.sol with solcjs (once per test file). */
function compiled(): Record<string, Artifact> {
  if (artifacts) return artifacts;
  const input = {
    language: 'Solidity',
    sources: {
      'MockAggregator.sol': { content: readFileSync(join(__dirname, 'MockAggregator.sol'), 'utf8') },
    },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)) as string) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: InterfaceAbi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  artifacts = Object.fromEntries(
    Object.entries(output.contracts['MockAggregator.sol']!).map(([name, c]) => [
      name,
      { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` },
    ]),
  );
  return artifacts;
}
