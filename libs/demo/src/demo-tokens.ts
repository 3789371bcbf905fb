/** The demo tokens file (`DATA_DIR/demo-tokens.json`); its keys are part of the contract. */
export interface DemoTokens {
  mcpUrl: string;
  apiUrl: string;
  tokens: {
    owner: string;
    member: string;
    readonly_pat: string;
    oauth_reader: string;
    inactive_member: string;
    former_member: string;
    globex_owner: string;
  };
}

export type DemoTokenSecrets = DemoTokens['tokens'];
