// Function-constant indices, one block per kernel family, as ggml numbers its FC_* constants.
#pragma once

#define LSIM_FC_SOFT_MAX 100
#define LSIM_FC_GEMV 200
