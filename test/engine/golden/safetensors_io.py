"""Minimal safetensors writer and reader for the golden fixtures.

The format: an 8-byte little-endian header length, a JSON header
{name: {dtype, shape, data_offsets}, "__metadata__": {...}} padded with spaces
to a multiple of 8, then the raw little-endian row-major tensor data. The
reader decodes bits with numpy only, so it does not share code with the
torch-based writer it checks.
"""
import json
import struct

import numpy as np
import torch

ST_DTYPES = {"float32": "F32", "bfloat16": "BF16", "float16": "F16"}


def tensor_bytes(t):
    """Raw little-endian row-major bytes of a torch tensor."""
    t = t.contiguous()
    if t.dtype == torch.float32:
        return t.numpy().astype("<f4").tobytes()
    return t.view(torch.int16).numpy().astype("<i2").tobytes()


def write_safetensors(path, tensors, dtype):
    """Minimal safetensors writer: u64 header length, JSON header, data."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        b = tensor_bytes(tensors[name])
        header[name] = {"dtype": ST_DTYPES[dtype],
                        "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    return offset


def read_safetensors(path):
    """Independent reader (numpy bit decoding) -> {name: float64 array}."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    assert n % 8 == 0, path
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    assert header.get("__metadata__") == {"format": "pt"}, path
    out, end = {}, 0
    for name, info in header.items():
        if name == "__metadata__":
            continue
        lo, hi = info["data_offsets"]
        width = 4 if info["dtype"] == "F32" else 2
        assert hi - lo == width * int(np.prod(info["shape"])), name
        assert 0 <= lo <= hi <= len(data), name
        end = max(end, hi)
        buf = data[lo:hi]
        if info["dtype"] == "F32":
            a = np.frombuffer(buf, "<f4").astype(np.float64)
        elif info["dtype"] == "F16":
            a = np.frombuffer(buf, "<f2").astype(np.float64)
        else:  # BF16: the upper half of an IEEE float32
            bits = np.frombuffer(buf, "<u2").astype(np.uint32) << 16
            a = bits.view(np.float32).astype(np.float64)
        out[name] = a.reshape(info["shape"])
    assert end == len(data), (path, "trailing bytes")
    return out
