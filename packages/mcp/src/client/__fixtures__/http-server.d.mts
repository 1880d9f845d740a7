export interface HttpFixture {
  url: string;
  requests: { method: string | undefined; headers: Record<string, string | string[] | undefined> }[];
  close(): Promise<void>;
}
export function startHttpFixture(): Promise<HttpFixture>;
