// The serving engine's settings that the estimator and the simulator share
// (one value each, so that `estimate` and `simulate` model the same engine).
#pragma once

namespace gpuplan::estimate {

// Chunked prefill's token budget: each engine step runs the batch's decode
// tokens and at most this many prompt tokens (2048, Sarathi-Serve, Agrawal
// et al. OSDI 2024 §5; vLLM's V1 engine always chunks). The estimator
// reserves one chunk's activations beside the KV cache; the simulator's
// engine stalls a decoding token by one chunk at most.
inline constexpr double kPrefillChunkTokens = 2048;

}  // namespace gpuplan::estimate
