import { getAddress } from 'ethers';

export const LOGIN_DOMAIN_NAME = 'Perp Exchange';
export const LOGIN_DOMAIN_VERSION = '1';
export const LOGIN_STATEMENT =
  'Sign in to Perp Exchange. This signature does not send a transaction or cost gas.';

/** The EIP-712 Login type. Wallets show fields in this order, so the statement comes first. */
export const LOGIN_TYPES = {
  Login: [
    { name: 'statement', type: 'string' },
    { name: 'address', type: 'address' },
    { name: 'nonce', type: 'string' },
    { name: 'timestamp', type: 'uint256' },
  ],
};

export interface LoginTypedData {
  domain: { name: string; version: string; chainId: number };
  types: typeof LOGIN_TYPES;
  primaryType: 'Login';
  message: { statement: string; address: string; nonce: string; timestamp: number };
}

export interface LoginMessageFields {
  /** The deployment's chain id: a signature for one deployment is useless on another. */
  chainId: number;
  address: string;
  nonce: string;
  /** Milliseconds since the epoch, when the nonce was issued. */
  timestamp: number;
  domainName?: string;
}

/**
 * The typed data a wallet signs to log in (GET /api/v1/auth/nonce/{address} returns it as
 * `typed_data`). `types` omits EIP712Domain, as ethers' signTypedData wants; the address is written
 * in its EIP-55 checksum form for display, which does not change what is signed.
 */
export function buildLoginTypedData(f: LoginMessageFields): LoginTypedData {
  return {
    domain: { name: f.domainName ?? LOGIN_DOMAIN_NAME, version: LOGIN_DOMAIN_VERSION, chainId: f.chainId },
    types: { Login: LOGIN_TYPES.Login.map((field) => ({ ...field })) },
    primaryType: 'Login',
    message: {
      statement: LOGIN_STATEMENT,
      address: getAddress(f.address),
      nonce: f.nonce,
      timestamp: f.timestamp,
    },
  };
}
