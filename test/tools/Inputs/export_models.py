"""Factories for test/tools/export-custom.test (FILE.py:FACTORY models)."""
import torch
import torch.nn as nn


class TwoInputs(nn.Module):
    """A float input and token ids; a head that is never used."""

    def __init__(self, unused=False):
        super().__init__()
        self.emb = nn.Embedding(10, 16)
        self.fc = nn.Linear(16, 16)
        self.out = nn.Linear(16, 4)
        if unused:
            self.spare = nn.Linear(16, 16)

    def forward(self, x, ids):
        return self.out(torch.relu(self.fc(x + self.emb(ids))))


def two_inputs():
    return TwoInputs()


def with_unused():
    return TwoInputs(unused=True)


class SparseBag(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(1000, 8, sparse=True)
        self.fc = nn.Linear(8, 2)

    def forward(self, ids):
        return self.fc(self.emb(ids).mean(1))


def sparse_embedding():
    return SparseBag()


def not_a_module():
    return 42
