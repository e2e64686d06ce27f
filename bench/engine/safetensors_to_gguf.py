#!/usr/bin/env python3
"""A Qwen3 safetensors folder (as the engine reads it) to a GGUF file for
llama.cpp, written with the llama.cpp checkout's own gguf-py.

bf16 and f16 matrices are copied bit for bit (no rounding: both programs
read the same weights); norms are written as f32, as llama.cpp's converter
does. The tokenizer comes from the folder's tokenizer.json (byte-level BPE,
Qwen2's pre-tokenizer), padded to the config's vocab_size.

Usage: safetensors_to_gguf.py LLAMA_CPP_DIR MODEL_DIR OUT.gguf
Needs numpy (Debian: python3-numpy)."""
import json
import struct
import sys
from pathlib import Path


def fail(message):
    print(f"safetensors_to_gguf: {message}", file=sys.stderr)
    sys.exit(2)


def read_safetensors(path, np):
    """Yields (name, dtype, shape, numpy array of the raw elements)."""
    with open(path, "rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_len))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + header_len)
    kinds = {"BF16": np.uint16, "F16": np.float16, "F32": np.float32}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        if t["dtype"] not in kinds:
            fail(f"{path}: tensor {name} has dtype {t['dtype']} (expected BF16, F16 or F32)")
        begin, end = t["data_offsets"]
        yield name, t["dtype"], t["shape"], data[begin:end].view(kinds[t["dtype"]]).reshape(t["shape"])


def bf16_to_f32(np, raw):
    return (raw.astype(np.uint32) << 16).view(np.float32)


def main():
    if len(sys.argv) != 4:
        fail("usage: safetensors_to_gguf.py LLAMA_CPP_DIR MODEL_DIR OUT.gguf")
    llama, model, out = (Path(a) for a in sys.argv[1:])
    try:
        import numpy as np
    except ImportError:
        fail("needs numpy (Debian: apt-get install python3-numpy)")
    sys.path.insert(0, str(llama / "gguf-py"))
    try:
        import gguf
    except ImportError as e:
        fail(f"{llama}/gguf-py: cannot import gguf ({e})")

    config = json.loads((model / "config.json").read_text())
    if config.get("model_type") != "qwen3":
        fail(f"{model}/config.json: model_type {config.get('model_type')!r} (expected 'qwen3')")
    tokenizer_path = model / "tokenizer.json"
    if not tokenizer_path.exists():
        fail(f"{model}: no tokenizer.json (engine-make-model --tokenizer DIR copies one in)")
    tokenizer = json.loads(tokenizer_path.read_text())

    n_layers = config["num_hidden_layers"]
    arch = gguf.MODEL_ARCH.QWEN3
    writer = gguf.GGUFWriter(str(out), gguf.MODEL_ARCH_NAMES[arch])
    writer.add_name(model.name)
    writer.add_block_count(n_layers)
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_head_count(config["num_attention_heads"])
    writer.add_head_count_kv(config["num_key_value_heads"])
    writer.add_key_length(config["head_dim"])
    writer.add_value_length(config["head_dim"])
    writer.add_rope_freq_base(float(config["rope_theta"]))
    writer.add_layer_norm_rms_eps(float(config["rms_norm_eps"]))
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_BF16)

    # Tokens by id: the BPE vocabulary, the added tokens, then padding.
    vocab_size = config["vocab_size"]
    tokens = [f"[PAD{i}]" for i in range(vocab_size)]
    types = [gguf.TokenType.UNUSED] * vocab_size
    for text, i in tokenizer["model"]["vocab"].items():
        if i < vocab_size:
            tokens[i], types[i] = text, gguf.TokenType.NORMAL
    for added in tokenizer.get("added_tokens", []):
        i = added["id"]
        if i < vocab_size:
            tokens[i] = added["content"]
            types[i] = gguf.TokenType.CONTROL if added.get("special") else gguf.TokenType.USER_DEFINED
    merges = [m if isinstance(m, str) else " ".join(m) for m in tokenizer["model"]["merges"]]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen2")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    writer.add_bos_token_id(config.get("bos_token_id", 151643))
    writer.add_eos_token_id(config.get("eos_token_id", 151645))
    writer.add_add_bos_token(False)

    names = gguf.get_tensor_name_map(arch, n_layers)
    files = sorted(model.glob("*.safetensors"))
    if not files:
        fail(f"{model}: no .safetensors files")
    seen = set()
    for path in files:
        for name, dtype, shape, raw in read_safetensors(path, np):
            new = names.get_name(name, try_suffixes=(".weight", ".bias"))
            if new is None:
                fail(f"{path}: tensor {name} has no GGUF name for qwen3")
            if new in seen:
                continue
            seen.add(new)
            if len(shape) == 1:  # norms: f32
                values = bf16_to_f32(np, raw) if dtype == "BF16" else raw.astype(np.float32)
                writer.add_tensor(new, np.ascontiguousarray(values))
            elif dtype == "BF16":
                writer.add_tensor(new, np.ascontiguousarray(raw), raw_dtype=gguf.GGMLQuantizationType.BF16)
            else:
                writer.add_tensor(new, np.ascontiguousarray(raw))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    print(f"safetensors_to_gguf: wrote {out} ({len(seen)} tensors)")


if __name__ == "__main__":
    main()
