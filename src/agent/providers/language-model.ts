import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { ModelTarget } from './model-target.js';

/**
 * The AI SDK model for a target. Each provider package is imported here, on first use, so that neither
 * `editgate --help` nor chat's own start-up (the input prompt shows before this runs) pays for loading it.
 */
export async function createLanguageModel(target: ModelTarget): Promise<LanguageModelV3> {
  const common = {
    ...(target.baseURL ? { baseURL: target.baseURL } : {}),
    ...(target.apiKey ? { apiKey: target.apiKey } : {}),
  };
  switch (target.family) {
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic(common)(target.modelId);
    }
    case 'openai': {
      // Chat Completions: the protocol every OpenAI-compatible server speaks too, so one code path is tested
      // for both. (The Responses API, where OpenAI's native apply_patch tool lives, is one line away.)
      const { createOpenAI } = await import('@ai-sdk/openai');
      return createOpenAI(common).chat(target.modelId);
    }
    case 'openai-compatible': {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return createOpenAICompatible({
        name: target.provider,
        baseURL: target.baseURL!,
        ...(target.apiKey ? { apiKey: target.apiKey } : {}),
        // Token counts in the stream: /usage, and the check for a server that cut the context.
        includeUsage: true,
      }).chatModel(target.modelId);
    }
  }
}
