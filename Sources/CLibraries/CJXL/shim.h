// libjxl: the decoder (incremental, frames, JPEG reconstruction), the encoder, and its thread runner.
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>
