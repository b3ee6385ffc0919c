/**
 * The agent card (A2A protocol 1.0, "Agent Discovery"; served at `/.well-known/agent-card.json`):
 * who the agent is, where its JSON-RPC endpoint is (for protocol 1.0 and 0.3 clients), that it
 * streams, that calls need a bearer token (an API key or the management token), and its skills
 * with ids, descriptions, tags, examples and input/output modes.
 */
import type { AgentCard } from "@a2a-js/sdk";
import type { A2ASkillDefinition } from "./skills.js";

/** Path of the JSON-RPC endpoint. */
export const A2A_PATH = "/a2a";
/** Agent version (the API's). */
export const AGENT_VERSION = "0.1.0";

const MODES = ["text/plain", "application/json"];

/**
 * The card for a deployment reached at `baseUrl` (e.g. `https://skillgate.example.com`).
 * @param skills the registered A2A skills, in card order.
 */
export function buildAgentCard(baseUrl: string, skills: readonly A2ASkillDefinition[]): AgentCard {
  const url = `${baseUrl.replace(/\/+$/, "")}${A2A_PATH}`;
  return {
    name: "Skillgate",
    description:
      "Edge skills layer for LLM gateways: describes what the deployment offers the caller (skills, formats, its API as Agent Skills) and recommends an upstream provider and model from the caller's own history.",
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" },
      { url, protocolBinding: "JSONRPC", protocolVersion: "0.3", tenant: "" },
    ],
    provider: undefined,
    version: AGENT_VERSION,
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: {
            scheme: "Bearer",
            bearerFormat: "",
            description: "A Skillgate API key (its own scope) or the management token",
          },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      tags: s.tags,
      examples: s.examples ?? [],
      inputModes: s.inputModes ?? MODES,
      outputModes: s.outputModes ?? MODES,
      securityRequirements: [],
    })),
    signatures: [],
  };
}
