#!/usr/bin/env python3
"""Hugging Face transformers as a second reference for the engine (run by
scripts/gpu-check.sh on the GPU machine, which has transformers; this
machine does not).

1. The golden fixtures (test/engine/golden, made by our own float64 reference
   written from modeling_qwen3's semantics) against transformers itself: the
   logits at every prompt position and the 12-token greedy paths.
2. Checkpoints that transformers writes (save_pretrained: its config.json
   and safetensors naming, tied and untied heads) run by the engine on the
   CPU and CUDA backends (engine-generate, greedy), scored by transformers
   in float32 on the same weights: every token the engine picks must be
   transformers' top choice in the engine's context, or within what bf16
   activations move the logits of it (measured here: transformers' own bf16
   run against its float32 one), since near-ties may go either way.

Usage: transformers_reference.py GOLDEN_DIR ENGINE_GENERATE OUT_DIR
Exit status: 0 all agree, 1 a disagreement, 2 a setup problem.
"""
import json
import os
import subprocess
import sys

import torch
import transformers
from transformers import AutoModelForCausalLM, Qwen3Config, Qwen3ForCausalLM


def load(folder, dtype, device):
    try:
        model = AutoModelForCausalLM.from_pretrained(
            folder, dtype=dtype, attn_implementation="eager")
    except TypeError:  # transformers 4 names it torch_dtype
        model = AutoModelForCausalLM.from_pretrained(
            folder, torch_dtype=dtype, attn_implementation="eager")
    return model.to(device).eval()


@torch.no_grad()
def logits_of(model, ids, device):
    x = torch.tensor([ids], device=device)
    return model(input_ids=x).logits[0].double().cpu()


@torch.no_grad()
def greedy(model, ids, steps, device):
    """Greedy by full recompute, with each step's top-1/top-2 margin."""
    ids, tokens, margins = list(ids), [], []
    for _ in range(steps):
        last = logits_of(model, ids, device)[-1]
        top = torch.topk(last, 2)
        tokens.append(int(top.indices[0]))
        margins.append(float(top.values[0] - top.values[1]))
        ids.append(tokens[-1])
    return tokens, margins


def check_golden(golden_dir, device, report):
    ok = True
    for name in sorted(os.listdir(golden_dir)):
        folder = os.path.join(golden_dir, name)
        path = os.path.join(folder, "golden.json")
        if not os.path.isfile(path):
            continue
        g = json.load(open(path))
        model = load(folder, torch.float64, device)
        # transformers computes RMS norms and RoPE's tables in float32 even
        # for a float64 model: allow a few times what float32 moves.
        tol = max(4 * g["f32_compute_max_abs_diff"], 1e-5)
        worst, paths_ok = 0.0, True
        for prompt, want_logits, want_path in zip(g["prompts"],
                                                  g["prompt_logits"],
                                                  g["greedy"]):
            got = logits_of(model, prompt, device)
            want = torch.tensor(want_logits, dtype=torch.float64)
            worst = max(worst, float((got - want).abs().max()))
            path_got, _ = greedy(model, prompt, len(want_path), device)
            paths_ok &= path_got == want_path
        good = worst <= tol and paths_ok
        ok &= good
        report["golden"][name] = {"max_abs_diff": worst, "tolerance": tol,
                                  "greedy_paths_equal": paths_ok}
        print(f"{'ok' if good else 'FAIL'}: golden {name}: transformers' "
              f"logits within {worst:.2e} of the reference (tolerance "
              f"{tol:.1e}); greedy paths {'equal' if paths_ok else 'DIFFER'}")
    return ok


SHAPES = [
    # The Qwen3-0.6B layout in miniature: head_dim 128, GQA 2, tied head.
    dict(name="tied_hd128_gqa2", vocab_size=1024, hidden_size=256,
         intermediate_size=768, num_hidden_layers=3, num_attention_heads=4,
         num_key_value_heads=2, head_dim=128, tie_word_embeddings=True,
         seed=11),
    # Untied head, head_dim 64, GQA 4, vocab not a multiple of 32.
    dict(name="untied_hd64_gqa4", vocab_size=999, hidden_size=192,
         intermediate_size=512, num_hidden_layers=2, num_attention_heads=8,
         num_key_value_heads=2, head_dim=64, tie_word_embeddings=False,
         seed=12),
]
PROMPTS = [[5, 17, 300, 42, 7], list(range(100, 140)),
           [(i * 37 + 11) % 900 for i in range(150)]]
STEPS = 16


def make_checkpoint(shape, folder):
    shape = dict(shape)
    seed = shape.pop("seed")
    shape.pop("name")
    config = Qwen3Config(max_position_embeddings=4096, rope_theta=1e6,
                         rms_norm_eps=1e-6, bos_token_id=shape["vocab_size"] - 2,
                         eos_token_id=shape["vocab_size"] - 1, **shape)
    # transformers 5 keeps RoPE's base in rope_parameters.
    if isinstance(getattr(config, "rope_parameters", None), dict):
        config.rope_parameters["rope_theta"] = 1e6
    torch.manual_seed(seed)
    model = Qwen3ForCausalLM(config)
    # Larger than a trained model's scales, as the golden fixtures use, so
    # greedy paths move and a misplaced norm or head shows.
    with torch.no_grad():
        for n, p in model.named_parameters():
            if p.dim() == 1:
                p.copy_(1 + 0.3 * torch.randn_like(p))
            elif "embed" in n or "lm_head" in n:
                p.normal_(0, 0.7)
            else:
                p.normal_(0, 0.25)
    model.to(torch.bfloat16).save_pretrained(folder)


def engine_paths(engine, folder, device, out_dir, name):
    ids_file = os.path.join(out_dir, "prompts.txt")
    with open(ids_file, "w") as f:
        for p in PROMPTS:
            f.write(" ".join(map(str, p)) + "\n")
    cmd = [engine, folder, "--device", device, "--ids-file", ids_file,
           "--max-tokens", str(STEPS), "--temperature", "0", "--ignore-eos",
           "--output", "ids", "--no-stream", "-q", "--max-num-seqs", "8",
           "--max-model-len", "512"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    with open(os.path.join(out_dir, f"{name}.{device}.log"), "w") as f:
        f.write(" ".join(cmd) + "\n" + run.stdout + run.stderr)
    if run.returncode != 0:
        print(f"FAIL: {name}: engine-generate --device {device}: "
              f"{run.stderr.strip()[-400:]}")
        return None
    lines = [l for l in run.stdout.splitlines()
             if l.strip() and not l.startswith("===")]
    return [list(map(int, l.split())) for l in lines]


def check_checkpoints(engine, out_dir, device, report):
    ok = True
    for shape in SHAPES:
        name = shape["name"]
        folder = os.path.join(out_dir, name)
        make_checkpoint(shape, folder)
        ref = load(folder, torch.float32, device)
        half = load(folder, torch.bfloat16, device)
        # What bf16 activations move the logits, over every prompt position.
        drift = max(float((logits_of(ref, p, device) -
                           logits_of(half, p, device)).abs().max())
                    for p in PROMPTS)
        want = [greedy(ref, p, STEPS, device)[0] for p in PROMPTS]
        written = json.load(open(os.path.join(folder, "config.json")))
        entry = {"bf16_drift": drift, "devices": {}, "config_rope": {
            k: written[k] for k in ("rope_theta", "rope_parameters",
                                    "rope_scaling", "dtype", "torch_dtype")
            if k in written}}
        for dev in ("cpu", "cuda"):
            got = engine_paths(engine, folder, dev, out_dir, name)
            if got is None or len(got) != len(PROMPTS) or any(
                    len(g) != STEPS for g in got):
                ok = False
                entry["devices"][dev] = "failed"
                continue
            # transformers scores the engine's own path (teacher forcing), so
            # every step is judged in the engine's context even after a
            # near-tie sent it another way: each token must be transformers'
            # top choice or within what bf16 moves logits of it.
            steps = exact = 0
            worst_gap = 0.0
            for prompt, path in zip(PROMPTS, got):
                rows = logits_of(ref, prompt + path[:-1], device)
                for i, token in enumerate(path):
                    row = rows[len(prompt) - 1 + i]
                    gap = float(row.max() - row[token])
                    steps += 1
                    exact += gap == 0.0
                    worst_gap = max(worst_gap, gap)
            good = worst_gap <= 2 * drift
            ok &= good
            entry["devices"][dev] = {"steps": steps, "top_choice": exact,
                                     "worst_gap": worst_gap, "paths": got}
            print(f"{'ok' if good else 'FAIL'}: {name} (transformers "
                  f"{transformers.__version__} wrote it) on the engine's "
                  f"{dev} backend: {exact} of {steps} greedy tokens are "
                  f"transformers' top choice, the rest within {worst_gap:.3f} "
                  f"of it (bf16 moves these logits by up to {drift:.3f})")
        entry["transformers_paths"] = want
        report["checkpoints"][name] = entry
    return ok


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    golden_dir, engine, out_dir = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.backends.cuda.matmul.allow_tf32 = False
    report = {"transformers": transformers.__version__,
              "torch": torch.__version__, "golden": {}, "checkpoints": {}}
    ok = check_golden(golden_dir, device, report)
    ok &= check_checkpoints(engine, out_dir, device, report)
    with open(os.path.join(out_dir, "transformers-reference.json"), "w") as f:
        json.dump(report, f, indent=1)
    print("transformers reference:", "all agree" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
