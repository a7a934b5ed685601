import { GENERIC_EDGE_SYSTEM_PROMPT, GENERIC_NODE_SYSTEM_PROMPT } from './generic-prompts.js';
import {
  HEALTHBENCH_EDGE_SYSTEM_PROMPT,
  HEALTHBENCH_NODE_SYSTEM_PROMPT,
  PLAWBENCH_EDGE_SYSTEM_PROMPT,
  PLAWBENCH_NODE_SYSTEM_PROMPT,
  WRITINGBENCH_EDGE_SYSTEM_PROMPT,
  WRITINGBENCH_NODE_SYSTEM_PROMPT,
} from './official-prompts.js';

export const PROFILE_NAMES = ['healthbench', 'writingbench', 'plawbench', 'generic'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** One annotation profile: the two system prompts and how the user prompt shows the conversation. */
export interface GraphProfile {
  readonly name: ProfileName;
  readonly nodeSystemPrompt: string;
  readonly edgeSystemPrompt: string;
  /** The official builder cuts long WritingBench messages to head + tail characters. */
  readonly truncateMessages: boolean;
}

export const PROFILES: Readonly<Record<ProfileName, GraphProfile>> = {
  healthbench: { name: 'healthbench', nodeSystemPrompt: HEALTHBENCH_NODE_SYSTEM_PROMPT, edgeSystemPrompt: HEALTHBENCH_EDGE_SYSTEM_PROMPT, truncateMessages: false },
  writingbench: { name: 'writingbench', nodeSystemPrompt: WRITINGBENCH_NODE_SYSTEM_PROMPT, edgeSystemPrompt: WRITINGBENCH_EDGE_SYSTEM_PROMPT, truncateMessages: true },
  plawbench: { name: 'plawbench', nodeSystemPrompt: PLAWBENCH_NODE_SYSTEM_PROMPT, edgeSystemPrompt: PLAWBENCH_EDGE_SYSTEM_PROMPT, truncateMessages: false },
  // Long generic prompts are cut like WritingBench's: the rubric, not the full document, decides the graph.
  generic: { name: 'generic', nodeSystemPrompt: GENERIC_NODE_SYSTEM_PROMPT, edgeSystemPrompt: GENERIC_EDGE_SYSTEM_PROMPT, truncateMessages: true },
};

export function isProfileName(value: string): value is ProfileName {
  return (PROFILE_NAMES as readonly string[]).includes(value);
}
