import { createRequire } from 'node:module';

/** The least ERC-20 a deposit watcher needs: balances, transfer, the Transfer event, decimals. */
export const TEST_TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract TestToken {
    uint8 public immutable decimals;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(uint8 decimals_, uint256 supply) {
        decimals = decimals_;
        balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        require(balanceOf[msg.sender] >= value, "balance");
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}
`;

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<string, Record<string, { evm: { bytecode: { object: string } } }>>;
}

/**
 * Compiled at test time with the `solc` dev dependency (about 2 s), so the bytecode always
 * matches the source above and nothing generated is committed.
 */
export function compileTestToken(): string {
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'TestToken.sol': { content: TEST_TOKEN_SOURCE } },
        settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['evm.bytecode.object'] } } },
      }),
    ),
  ) as SolcOutput;
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join('\n'));
  const bytecode = output.contracts['TestToken.sol']?.TestToken?.evm.bytecode.object;
  if (bytecode === undefined) throw new Error('solc produced no TestToken bytecode');
  return `0x${bytecode}`;
}

const word = (value: bigint | string): string => (typeof value === 'bigint' ? value.toString(16) : value.replace(/^0x/, '').toLowerCase()).padStart(64, '0');

/** Deployment data: bytecode followed by the ABI-encoded constructor arguments. */
export function deployData(bytecode: string, decimals: number, supply: bigint): string {
  return `${bytecode}${word(BigInt(decimals))}${word(supply)}`;
}

/** transfer(address,uint256) calldata. */
export function transferData(to: string, units: bigint): string {
  return `0xa9059cbb${word(to)}${word(units)}`;
}
