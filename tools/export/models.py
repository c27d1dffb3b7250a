#===- models.py - Model builders and example batches for the exporter ----===#
"""The models export_graph.py knows, each with an example batch and a loss.

BERT-like and GPT-like transformers are written here from torch.nn building
blocks (no transformers package on Debian); ResNet-50 comes from torchvision.
Every builder returns a ModelCase: the module, a function that runs forward
on a given module (the model itself or a DDP wrapper of it) and returns the
scalar loss, and a one-line description.
"""

import math
from dataclasses import dataclass
from typing import Callable, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelCase:
    module: nn.Module
    loss: Callable[[nn.Module], torch.Tensor]  # loss(module): forward, loss
    description: str


@dataclass
class TransformerConfig:
    layers: int
    hidden: int
    heads: int
    seq: int
    batch: int
    vocab: int
    positions: int
    dropout: float = 0.1


class SelfAttention(nn.Module):
    """Multi-head self-attention with explicit matmuls (QK^T, softmax, AV), so
    the attention FLOPs show up as bmm ops in the backward pass."""

    def __init__(self, cfg: TransformerConfig, causal: bool, fused_qkv: bool):
        super().__init__()
        self.heads = cfg.heads
        self.causal = causal
        h = cfg.hidden
        if fused_qkv:  # GPT-2's c_attn
            self.qkv = nn.Linear(h, 3 * h)
        else:  # BERT's query / key / value
            self.query = nn.Linear(h, h)
            self.key = nn.Linear(h, h)
            self.value = nn.Linear(h, h)
        self.proj = nn.Linear(h, h)
        self.attn_drop = nn.Dropout(cfg.dropout)
        self.resid_drop = nn.Dropout(cfg.dropout)

    def forward(self, x):
        b, t, c = x.shape
        if hasattr(self, "qkv"):
            q, k, v = self.qkv(x).split(c, dim=2)
        else:
            q, k, v = self.query(x), self.key(x), self.value(x)
        d = c // self.heads
        q, k, v = (z.view(b, t, self.heads, d).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d))
        if self.causal:
            mask = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
            att = att.masked_fill(mask, float("-inf"))
        att = self.attn_drop(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).reshape(b, t, c)
        return self.resid_drop(self.proj(y))


class FeedForward(nn.Module):
    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.fc = nn.Linear(cfg.hidden, 4 * cfg.hidden)
        self.proj = nn.Linear(4 * cfg.hidden, cfg.hidden)
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, x):
        return self.drop(self.proj(F.gelu(self.fc(x))))


class GPTBlock(nn.Module):
    """Pre-LayerNorm decoder block (GPT-2)."""

    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.hidden)
        self.attn = SelfAttention(cfg, causal=True, fused_qkv=True)
        self.ln_2 = nn.LayerNorm(cfg.hidden)
        self.mlp = FeedForward(cfg)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """GPT-2: token + position embeddings, decoder blocks, final LayerNorm,
    LM head tied to the token embedding."""

    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.wte = nn.Embedding(cfg.vocab, cfg.hidden)
        self.wpe = nn.Embedding(cfg.positions, cfg.hidden)
        self.drop = nn.Dropout(cfg.dropout)
        self.h = nn.ModuleList(GPTBlock(cfg) for _ in range(cfg.layers))
        self.ln_f = nn.LayerNorm(cfg.hidden)

    def forward(self, idx):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        return F.linear(self.ln_f(x), self.wte.weight)  # tied LM head


class BertLayer(nn.Module):
    """Post-LayerNorm encoder layer (BERT)."""

    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.attention = SelfAttention(cfg, causal=False, fused_qkv=False)
        self.attention_norm = nn.LayerNorm(cfg.hidden, eps=1e-12)
        self.ffn = FeedForward(cfg)
        self.output_norm = nn.LayerNorm(cfg.hidden, eps=1e-12)

    def forward(self, x):
        x = self.attention_norm(x + self.attention(x))
        return self.output_norm(x + self.ffn(x))


class Bert(nn.Module):
    """BERT pre-training model: embeddings (word, position, token type,
    LayerNorm), encoder, pooler, masked-LM head tied to the word embedding
    (with its own output bias) and the next-sentence classifier."""

    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        h = cfg.hidden
        self.word_embeddings = nn.Embedding(cfg.vocab, h)
        self.position_embeddings = nn.Embedding(cfg.positions, h)
        self.token_type_embeddings = nn.Embedding(2, h)
        self.embeddings_norm = nn.LayerNorm(h, eps=1e-12)
        self.embeddings_drop = nn.Dropout(cfg.dropout)
        self.encoder = nn.ModuleList(BertLayer(cfg) for _ in range(cfg.layers))
        self.pooler = nn.Linear(h, h)
        self.mlm_transform = nn.Linear(h, h)
        self.mlm_norm = nn.LayerNorm(h, eps=1e-12)
        self.mlm_head = MlmDecoder(self.word_embeddings, cfg.vocab)
        self.nsp = nn.Linear(h, 2)

    def forward(self, idx, token_types):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = (self.word_embeddings(idx) + self.position_embeddings(pos) +
             self.token_type_embeddings(token_types))
        x = self.embeddings_drop(self.embeddings_norm(x))
        for layer in self.encoder:
            x = layer(x)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        mlm = self.mlm_head(self.mlm_norm(F.gelu(self.mlm_transform(x))))
        return mlm, self.nsp(pooled)


class MlmDecoder(nn.Module):
    """Masked-LM decoder: the word-embedding matrix (shared, owned by the
    embedding) plus an output bias of its own, as in BERT."""

    def __init__(self, embedding: nn.Embedding, vocab: int):
        super().__init__()
        self.embedding = [embedding]  # a list: not registered as a submodule
        self.bias = nn.Parameter(torch.zeros(vocab))

    def forward(self, x):
        return F.linear(x, self.embedding[0].weight, self.bias)


class Mlp(nn.Module):
    """`layers` Linear(hidden, hidden) layers with ReLU in between."""

    def __init__(self, layers: int, hidden: int):
        super().__init__()
        self.fc = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(layers))

    def forward(self, x):
        for i, layer in enumerate(self.fc):
            x = layer(x)
            if i + 1 < len(self.fc):
                x = F.relu(x)
        return x


# Defaults per model: what each override starts from. Batch sizes are the
# per-device example batch recorded (FLOP-estimated times scale with it).
DEFAULTS = {
    # torchvision's reference classification recipe: 32 images per device.
    "resnet50": dict(batch=32),
    # BERT-large: 24 x 1024, 16 heads, vocab 30522, 512 positions.
    "bert-large": dict(layers=24, hidden=1024, heads=16, seq=128, batch=8,
                       vocab=30522),
    # GPT-2 XL: 48 x 1600, 25 heads, vocab 50257, 1024 positions (1.56 B
    # parameters); batch 1 and a short sequence keep the CPU run feasible.
    "gpt2-xl": dict(layers=48, hidden=1600, heads=25, seq=128, batch=1,
                    vocab=50257),
    # GPT-2 structure (48 blocks) at a width that fits the demo: ~10 M
    # parameters, ~42 MB of fp32 gradients.
    "gpt-small": dict(layers=48, hidden=128, heads=4, seq=128, batch=8,
                      vocab=8192),
    # A plain MLP for tests and quick looks.
    "mlp": dict(layers=2, hidden=512, batch=4),
}

MODELS = list(DEFAULTS)

# Which overrides each model takes (others are rejected, not ignored).
OVERRIDES = {
    "resnet50": {"batch"},
    "bert-large": {"layers", "hidden", "heads", "seq", "batch", "vocab"},
    "gpt2-xl": {"layers", "hidden", "heads", "seq", "batch", "vocab"},
    "gpt-small": {"layers", "hidden", "heads", "seq", "batch", "vocab"},
    "mlp": {"layers", "hidden", "batch"},
}


def settings(model: str, overrides: dict) -> dict:
    """The model's defaults with the given overrides applied; raises
    ValueError naming the problem for an override the model does not take or
    an inconsistent combination."""
    s = dict(DEFAULTS[model])
    for key, value in overrides.items():
        if value is None:
            continue
        if key not in OVERRIDES[model]:
            raise ValueError(f"--{key} does not apply to model '{model}' "
                             f"(it takes: {', '.join('--' + k for k in sorted(OVERRIDES[model]))})")
        s[key] = value
    if "heads" in s and s["hidden"] % s["heads"]:
        raise ValueError(f"--hidden {s['hidden']} is not a multiple of "
                         f"--heads {s['heads']}")
    if model == "bert-large" and s["seq"] > 512:
        raise ValueError(f"--seq {s['seq']} exceeds BERT's 512 positions")
    if model in ("gpt2-xl", "gpt-small") and s["seq"] > 1024:
        raise ValueError(f"--seq {s['seq']} exceeds GPT-2's 1024 positions")
    return s


def build(model: str, s: dict, generator: Optional[torch.Generator] = None) -> ModelCase:
    """Builds `model` with settings `s` (from settings()) and its batch."""
    g = generator or torch.Generator().manual_seed(0)
    if model == "resnet50":
        import torchvision
        net = torchvision.models.resnet50()
        images = torch.randn(s["batch"], 3, 224, 224, generator=g)
        labels = torch.randint(0, 1000, (s["batch"],), generator=g)
        return ModelCase(net, lambda m: F.cross_entropy(m(images), labels),
                         f"torchvision ResNet-50, batch {s['batch']} x 3x224x224")
    if model == "mlp":
        net = Mlp(s["layers"], s["hidden"])
        x = torch.randn(s["batch"], s["hidden"], generator=g)
        return ModelCase(net, lambda m: m(x).pow(2).mean(),
                         f"MLP {s['layers']} x Linear({s['hidden']}, {s['hidden']}), batch {s['batch']}")
    positions = 512 if model == "bert-large" else 1024
    cfg = TransformerConfig(layers=s["layers"], hidden=s["hidden"],
                            heads=s["heads"], seq=s["seq"], batch=s["batch"],
                            vocab=s["vocab"], positions=positions)
    idx = torch.randint(0, cfg.vocab, (cfg.batch, cfg.seq), generator=g)
    shape = (f"{cfg.layers} layers, hidden {cfg.hidden}, {cfg.heads} heads, "
             f"vocab {cfg.vocab}, batch {cfg.batch} x seq {cfg.seq}")
    if model == "bert-large":
        net = Bert(cfg)
        types = (torch.arange(cfg.seq) >= cfg.seq // 2).long().expand(cfg.batch, -1)
        mlm_labels = torch.randint(0, cfg.vocab, (cfg.batch, cfg.seq), generator=g)
        nsp_labels = torch.randint(0, 2, (cfg.batch,), generator=g)

        def bert_loss(m):
            mlm, nsp = m(idx, types)
            return (F.cross_entropy(mlm.reshape(-1, cfg.vocab), mlm_labels.reshape(-1)) +
                    F.cross_entropy(nsp, nsp_labels))
        return ModelCase(net, bert_loss, "BERT-like encoder (post-LN, MLM + NSP heads), " + shape)
    net = GPT(cfg)
    targets = torch.randint(0, cfg.vocab, (cfg.batch, cfg.seq), generator=g)
    return ModelCase(
        net,
        lambda m: F.cross_entropy(m(idx).reshape(-1, cfg.vocab), targets.reshape(-1)),
        "GPT-2-like decoder (pre-LN, tied LM head), " + shape)
