"""Independent float64 reference of the Qwen3 forward pass.

Two formulations written from the semantics of Hugging Face's
modeling_qwen3.py: forward_ref, a plain numpy loop over heads and positions
(with hooks that round activations like a reduced-precision engine and that
inject known bugs), and forward_torch, a batched torch.nn.functional version
with complex-number RoPE used to cross-check it. make_golden.py records what
they compute; nothing here knows about files.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F

GREEDY_STEPS = 12


def identity(x):
    return x


def round_bf16(x):
    """float64 -> float32 -> bf16 (round to nearest even) -> float64."""
    f = np.asarray(x, dtype=np.float32)
    bits = f.view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def round_f16(x):
    return np.asarray(x, dtype=np.float32).astype(np.float16).astype(
        np.float64)


def rmsnorm(x, w, eps, use_weight=True):
    y = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return y * w if use_weight else y


def rope_cos_sin(n, head_dim, theta):
    i = np.arange(head_dim // 2, dtype=np.float64)
    inv_freq = theta ** (-2.0 * i / head_dim)
    freqs = np.arange(n, dtype=np.float64)[:, None] * inv_freq[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb), np.sin(emb)


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def apply_rope(x, cos, sin, interleaved=False):
    """x: [T, heads, head_dim]. NeoX halves; interleaved is a bug mode."""
    if interleaved:  # GPT-J pairs (0,1), (2,3), ...
        x1, x2 = x[..., 0::2], x[..., 1::2]
        c = cos[:, None, :x1.shape[-1]]
        s = sin[:, None, :x1.shape[-1]]
        out = np.empty_like(x)
        out[..., 0::2] = x1 * c - x2 * s
        out[..., 1::2] = x2 * c + x1 * s
        return out
    return x * cos[:, None, :] + rotate_half(x) * sin[:, None, :]


def forward_ref(W, c, ids, act=identity, kv=identity, bug=None):
    """Logits [T, vocab] for token ids, recomputed from scratch.

    act rounds every linear layer's input (bf16/f16 engine emulation); kv
    rounds k and v as a reduced-precision KV cache would; bug injects one
    known implementation mistake (for the sensitivity table).
    """
    T, D = len(ids), c["head_dim"]
    nh, nkv, eps = c["heads"], c["kv_heads"], c["eps"]
    group = nh // nkv
    use_w = bug != "norm_weights_ignored"
    theta = c["theta"]
    if bug == "rope_theta_swapped":
        theta = 1e4 if theta == 1e6 else 1e6
    cos, sin = rope_cos_sin(T, D, theta)
    x = W["model.embed_tokens.weight"][np.asarray(ids)]
    for i in range(c["layers"]):
        p = f"model.layers.{i}."
        h = act(rmsnorm(x, W[p + "input_layernorm.weight"], eps, use_w))
        q = (h @ W[p + "self_attn.q_proj.weight"].T).reshape(T, nh, D)
        k = (h @ W[p + "self_attn.k_proj.weight"].T).reshape(T, nkv, D)
        v = (h @ W[p + "self_attn.v_proj.weight"].T).reshape(T, nkv, D)
        qn = W[p + "self_attn.q_norm.weight"]
        kn = W[p + "self_attn.k_norm.weight"]
        if bug not in ("qk_norm_missing", "qk_norm_after_rope"):
            q, k = rmsnorm(q, qn, eps, use_w), rmsnorm(k, kn, eps, use_w)
        if bug != "rope_missing":
            il = bug == "rope_interleaved_gptj"
            q, k = apply_rope(q, cos, sin, il), apply_rope(k, cos, sin, il)
        if bug == "qk_norm_after_rope":
            q, k = rmsnorm(q, qn, eps, use_w), rmsnorm(k, kn, eps, use_w)
        k, v = kv(k), kv(v)
        attn = np.zeros((T, nh, D))
        for hh in range(nh):
            g = hh % nkv if bug == "gqa_head_mapping_modulo" else hh // group
            for t in range(T):
                s = k[:t + 1, g, :] @ q[t, hh, :] / math.sqrt(D)
                w = np.exp(s - s.max())
                attn[t, hh] = (w / w.sum()) @ v[:t + 1, g, :]
        o = act(attn.reshape(T, nh * D))
        x = x + o @ W[p + "self_attn.o_proj.weight"].T
        post = W[p + "post_attention_layernorm.weight"]
        h = act(rmsnorm(x, post, eps, use_w))
        gate = h @ W[p + "mlp.gate_proj.weight"].T
        up = h @ W[p + "mlp.up_proj.weight"].T
        a = act(gate / (1.0 + np.exp(-gate)) * up)
        x = x + a @ W[p + "mlp.down_proj.weight"].T
    h = act(rmsnorm(x, W["model.norm.weight"], eps, use_w))
    head = W["model.embed_tokens.weight"] if c["tied"] else W["lm_head.weight"]
    return h @ head.T


BUGS = ["norm_weights_ignored", "qk_norm_missing", "qk_norm_after_rope",
        "rope_missing", "rope_interleaved_gptj", "rope_theta_swapped",
        "gqa_head_mapping_modulo"]


# ------------------------------ reference 2: batched torch (cross-check)

def forward_torch(W, c, prompts, dtype=torch.float64):
    """Same model via torch.nn.functional on a right-padded batch.

    Causal masking makes padding after a prompt irrelevant to its rows.
    RoPE is done as complex multiplication, GQA by repeat_interleave.
    dtype float32 measures what plain fp32 arithmetic costs.
    """
    Wt = {k: torch.from_numpy(v).to(dtype) for k, v in W.items()}
    B, T = len(prompts), max(len(p) for p in prompts)
    D, nh, nkv, eps = c["head_dim"], c["heads"], c["kv_heads"], c["eps"]
    ids = torch.zeros(B, T, dtype=torch.long)
    for b, p in enumerate(prompts):
        ids[b, :len(p)] = torch.tensor(p)

    def norm(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w

    inv = 1.0 / c["theta"] ** (torch.arange(0, D, 2, dtype=dtype) / D)
    ang = torch.outer(torch.arange(T, dtype=dtype), inv)
    rot = torch.polar(torch.ones_like(ang), ang)  # [T, D/2]

    def rope(x):  # [B, heads, T, D]
        z = torch.complex(x[..., :D // 2], x[..., D // 2:]) * rot
        return torch.cat([z.real, z.imag], dim=-1)

    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    x = F.embedding(ids, Wt["model.embed_tokens.weight"])
    for i in range(c["layers"]):
        p = f"model.layers.{i}."
        h = norm(x, Wt[p + "input_layernorm.weight"])
        q = F.linear(h, Wt[p + "self_attn.q_proj.weight"]).view(B, T, nh, D)
        k = F.linear(h, Wt[p + "self_attn.k_proj.weight"]).view(B, T, nkv, D)
        v = F.linear(h, Wt[p + "self_attn.v_proj.weight"]).view(B, T, nkv, D)
        q = rope(norm(q, Wt[p + "self_attn.q_norm.weight"]).transpose(1, 2))
        k = rope(norm(k, Wt[p + "self_attn.k_norm.weight"]).transpose(1, 2))
        v = v.transpose(1, 2)
        k = k.repeat_interleave(nh // nkv, dim=1)
        v = v.repeat_interleave(nh // nkv, dim=1)
        s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(D)
        o = torch.matmul(torch.softmax(s.masked_fill(mask, -math.inf), -1), v)
        o = o.transpose(1, 2).reshape(B, T, nh * D)
        x = x + F.linear(o, Wt[p + "self_attn.o_proj.weight"])
        h = norm(x, Wt[p + "post_attention_layernorm.weight"])
        m = F.silu(F.linear(h, Wt[p + "mlp.gate_proj.weight"])) * F.linear(
            h, Wt[p + "mlp.up_proj.weight"])
        x = x + F.linear(m, Wt[p + "mlp.down_proj.weight"])
    h = norm(x, Wt["model.norm.weight"])
    head = Wt["model.embed_tokens.weight" if c["tied"] else "lm_head.weight"]
    logits = F.linear(h, head).to(torch.float64).numpy()
    return [logits[b, :len(p)] for b, p in enumerate(prompts)]


def self_test_rope():
    """RoPE: identity at position 0, norm-preserving, relative-position."""
    rng = np.random.default_rng(7)
    for D, theta in ((16, 1e4), (32, 1e6), (128, 1e6)):
        cos, sin = rope_cos_sin(64, D, theta)
        q, k = rng.standard_normal((2, 64, 1, D))
        rq, rk = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        assert np.allclose(rq[0], q[0], rtol=0, atol=1e-15)
        assert np.allclose(np.linalg.norm(rq, axis=-1),
                           np.linalg.norm(q, axis=-1), rtol=0, atol=1e-12)
        # rope(q, m) . rope(k, n) depends only on m - n: rotate the SAME
        # vectors to shifted positions and compare dot products.
        qs, ks = np.repeat(q[:1], 64, 0), np.repeat(k[:1], 64, 0)
        rq, rk = apply_rope(qs, cos, sin), apply_rope(ks, cos, sin)
        for m, n, shift in ((5, 2, 11), (3, 3, 40), (0, 9, 30), (20, 1, 43)):
            a = rq[m, 0] @ rk[n, 0]
            b = rq[m + shift, 0] @ rk[n + shift, 0]
            assert abs(a - b) < 1e-10, (D, m, n, shift, a, b)
        # ... and does depend on it (not a no-op).
        assert abs(rq[5, 0] @ rk[2, 0] - rq[5, 0] @ rk[4, 0]) > 1e-3


def greedy(W, c, prompt, stop_below=None, **kw):
    """12 argmax steps, each a full recompute; returns tokens, margins.

    With stop_below, gives up (returns None) at the first step whose
    top-1/top-2 margin is smaller: the prompt search's early exit.
    """
    seq, toks, margins = list(prompt), [], []
    for _ in range(GREEDY_STEPS):
        last = forward_ref(W, c, seq, **kw)[-1]
        order = np.argsort(-last, kind="stable")
        margins.append(float(last[order[0]] - last[order[1]]))
        if stop_below is not None and margins[-1] < stop_below:
            return None
        toks.append(int(order[0]))
        seq.append(int(order[0]))
    return toks, margins
