import type { AddressFormat } from '../../../src/domain/address-format.js';

/**
 * The valid test vectors of this folder's validator tests, per format (copied from them as they
 * are; address-patterns.test.ts checks each is still valid, so a vector dropped there is noticed
 * here): what the Currency's address_regex must accept (docs/contract.md §10.7).
 */
export const VALID_VECTORS: Readonly<Record<AddressFormat, readonly string[]>> = {
  bitcoin: [
    '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
    '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
    '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
    '3P14159f73E4gFr7JterCCQh9QjiTjiZrG',
    'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4',
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
    'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
    'BC1SW50QGDZ25J',
    'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs',
  ],
  litecoin: [
    'LgfapHEPhZbRF9pMd5WPT35hFXcZS1USrW',
    'LTuoeY6RBHV3n3cfhXVVTbJbxzxnXs9ofm',
    'Lg3PX8wRWmApFCoCMAsPF5P9dPHYQHEWKW',
    'MGEW4aba3tnrVtVhGcmoqqHaLt5ymPSLPi',
    '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
    'ltc1qxtm55gultqzhqzl2p3ks50hg2478y3hehuj6dz',
    'LTC1QXTM55GULTQZHQZL2P3KS50HG2478Y3HEHUJ6DZ',
  ],
  dogecoin: [
    'DDWUYQ3GfMDj8hkx8cbnAMYkTzzAunAQxg',
    'DEa7damK8MsbdCJztidBasZKVsDLJifWfE',
    'DNkkfdUvkCDiywYE98MTVp9nQJTgeZAiFr',
    'DPpJVPpvPNP6i6tMj4rTycAGh8wReTqaSU',
    'A7JjzK9k9x5b2MkkQzqt91WZsuu7wTu6iS',
    'A5qAJPAc1Ym4A815HcvLKe6Bp5DJeRPJtF',
  ],
  evm: [
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ],
  tron: [
    'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb',
    'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8',
    'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
  ],
  solana: [
    '11111111111111111111111111111111',
    'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    'So11111111111111111111111111111111111111112',
    'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
    'Vote111111111111111111111111111111111111111',
    'Sysvar1nstructions1111111111111111111111111',
  ],
  xrp: [
    'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh',
    'rrrrrrrrrrrrrrrrrrrrrhoLvTp',
    'rrrrrrrrrrrrrrrrrrrrBZbvji',
    'rrrrrrrrrrrrrrrrrNAMEtxvNvQ',
    'rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf',
    'rU6K7V3Po4snVhBBaU29sesqs2qTQJWDw1',
  ],
  stellar: [
    'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ',
    'GAQAA5L65LSYH7CQ3VTJ7F3HHLGCL3DSLAR2Y47263D56MNNGHSQSTVY',
    'GBPXXOA5N4JYPESHAADMQKBPWZWQDQ64ZV6ZL2S3LAGW4SY7NTCMWIVL',
    'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7',
  ],
  ton: [
    'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N',
    'UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI',
    'Ef_lZ1T4NCb2mwkme9h2rJfESCE0W34ma9lWp7-_uY3zXDvq',
    'Uf_lZ1T4NCb2mwkme9h2rJfESCE0W34ma9lWp7-_uY3zXGYv',
    'Ef8zMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzM0vF',
    'Ef/lZ1T4NCb2mwkme9h2rJfESCE0W34ma9lWp7+/uY3zXDvq',
    '0:83dfd552e63729b472fcbcc8c45ebcc6691702558b68ec7527e1ba403a0f31a8',
    '-1:e56754f83426f69b09267bd876ac97c44821345b7e266bd956a7bfbfb98df35c',
    '-1:E56754F83426F69B09267BD876AC97C44821345B7E266BD956A7BFBFB98DF35C',
  ],
};
