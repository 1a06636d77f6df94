#!/usr/bin/env python3
"""Writes the bundled model graphs (docs/model_format.md) from their published architectures.

  resnet50.json      He et al., "Deep Residual Learning for Image Recognition", CVPR 2016,
                     Table 1 (50-layer, bottleneck blocks [3, 4, 6, 3]); batch 32, 224x224.
  bert_base.json     Devlin et al., "BERT", NAACL 2019: BERT-base, L=12, H=768, A=12, FFN 3072;
                     sequence 128, batch 16 (the encoder; embeddings and pooler left out).
  mobilenet_v2.json  Sandler et al., "MobileNetV2", CVPR 2018, Table 2 (t, c, n, s rows);
                     batch 32, 224x224.
  gpt2_block.json    Radford et al., "Language Models are Unsupervised Multitask Learners",
                     2019: one GPT-2 small decoder block (d_model 768, 12 heads, FFN 3072, pre-LN);
                     batch 8, sequence 1024.

Simplifications, so that every node is an operator AOE tunes: batch norm is inference batch
norm (BatchNorm with scale and offset); head splits and merges are Reshape nodes (layout only,
not tuned) with the key transpose carried by BatchMatMul's adj_x2 attribute; GPT-2's fused
c_attn (768 -> 2304, then split) is written as its three 768 -> 768 projections.

python3 examples/models/generate.py   (stdlib only; rewrites the four files beside it)
"""
import json
import os

F16 = "float16"


class Graph:
    def __init__(self, name):
        self.name = name
        self.tensors = {}
        self.nodes = []

    def tensor(self, name, shape, fmt="ND", dtype=F16):
        self.tensors[name] = {"shape": list(shape), "dtype": dtype, "format": fmt}
        return name

    def node(self, name, op_type, inputs, out_shape, fmt="ND", attrs=None):
        out = self.tensor(name + ":0", out_shape, fmt)
        n = {"name": name, "type": op_type, "inputs": inputs, "outputs": [out]}
        if attrs:
            n["attributes"] = attrs
        self.nodes.append(n)
        return out

    def shape(self, t):
        return self.tensors[t]["shape"]

    def write(self, directory):
        path = os.path.join(directory, self.name + ".json")
        doc = {"format_version": 1, "name": self.name, "tensors": self.tensors,
               "nodes": self.nodes}
        with open(path, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
            f.write("\n")
        return path


# ---- convolutional networks (NCHW) --------------------------------------------------------

def conv(g, name, x, cout, k, stride=1, depthwise=False):
    n, cin, h, w = g.shape(x)
    pad = k // 2
    ho = (h + 2 * pad - k) // stride + 1
    wo = (w + 2 * pad - k) // stride + 1
    attrs = {"strides": [1, 1, stride, stride], "pads": [pad, pad, pad, pad],
             "dilations": [1, 1, 1, 1], "data_format": "NCHW"}
    if depthwise:
        wt = g.tensor(name + "/depthwise_weights", [cin, 1, k, k], "NCHW")
        return g.node(name, "DepthwiseConv2D", [x, wt], [n, cin, ho, wo], "NCHW", attrs)
    wt = g.tensor(name + "/weights", [cout, cin, k, k], "NCHW")
    attrs["groups"] = 1
    return g.node(name, "Conv2D", [x, wt], [n, cout, ho, wo], "NCHW", attrs)


def bn(g, name, x, act=None):
    c = g.shape(x)[1]
    scale = g.tensor(name + "/gamma", [c], dtype="float32")
    offset = g.tensor(name + "/beta", [c], dtype="float32")
    y = g.node(name, "BatchNorm", [x, scale, offset], g.shape(x), "NCHW",
               {"epsilon": 1e-5, "is_training": False})
    if act:
        y = g.node(name.rsplit("/", 1)[0] + "/" + act.lower(), act, [y], g.shape(x), "NCHW")
    return y


def classifier(g, x, classes):
    n, c, h, w = g.shape(x)
    p = g.node("avgpool", "AvgPool", [x], [n, c, 1, 1], "NCHW",
               {"ksize": [1, 1, h, w], "strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0],
                "data_format": "NCHW"})
    flat = g.node("flatten", "Reshape", [p], [n, c])
    wt = g.tensor("fc/weights", [c, classes])
    b = g.tensor("fc/bias", [classes])
    y = g.node("fc/MatMul", "MatMul", [flat, wt], [n, classes],
               attrs={"transpose_a": False, "transpose_b": False})
    return g.node("fc/BiasAdd", "BiasAdd", [y, b], [n, classes])


def resnet50(batch=32):
    g = Graph("resnet50")
    x = g.tensor("input", [batch, 3, 224, 224], "NCHW")
    x = bn(g, "conv1/bn", conv(g, "conv1/conv", x, 64, 7, 2), "Relu")
    n, c, h, w = g.shape(x)
    x = g.node("pool1", "MaxPool", [x], [n, c, h // 2, w // 2], "NCHW",
               {"ksize": [1, 1, 3, 3], "strides": [1, 1, 2, 2], "pads": [1, 1, 1, 1],
                "data_format": "NCHW"})
    for stage, (blocks, width) in enumerate(zip([3, 4, 6, 3], [64, 128, 256, 512]), start=2):
        for b in range(blocks):
            p = "res%d%s" % (stage, chr(ord("a") + b))
            stride = 2 if (b == 0 and stage > 2) else 1
            y = bn(g, p + "_branch2a/bn", conv(g, p + "_branch2a", x, width, 1), "Relu")
            y = bn(g, p + "_branch2b/bn", conv(g, p + "_branch2b", y, width, 3, stride), "Relu")
            y = bn(g, p + "_branch2c/bn", conv(g, p + "_branch2c", y, 4 * width, 1))
            if b == 0:
                x = bn(g, p + "_branch1/bn", conv(g, p + "_branch1", x, 4 * width, 1, stride))
            s = g.node(p + "/add", "Add", [x, y], g.shape(y), "NCHW")
            x = g.node(p + "/relu", "Relu", [s], g.shape(y), "NCHW")
    classifier(g, x, 1000)
    return g


def mobilenet_v2(batch=32):
    g = Graph("mobilenet_v2")
    x = g.tensor("input", [batch, 3, 224, 224], "NCHW")
    x = bn(g, "conv1/bn", conv(g, "conv1/conv", x, 32, 3, 2), "Relu6")
    rows = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
            (6, 160, 3, 2), (6, 320, 1, 1)]
    block = 0
    for t, cout, n, s in rows:
        for i in range(n):
            p = "block%d" % block
            block += 1
            stride = s if i == 0 else 1
            cin = g.shape(x)[1]
            y = x
            if t != 1:
                y = bn(g, p + "/expand/bn", conv(g, p + "/expand", y, cin * t, 1), "Relu6")
            y = bn(g, p + "/depthwise/bn", conv(g, p + "/depthwise", y, 0, 3, stride, True),
                   "Relu6")
            y = bn(g, p + "/project/bn", conv(g, p + "/project", y, cout, 1))
            if stride == 1 and cin == cout:
                y = g.node(p + "/add", "Add", [x, y], g.shape(y), "NCHW")
            x = y
    x = bn(g, "conv_last/bn", conv(g, "conv_last", x, 1280, 1), "Relu6")
    classifier(g, x, 1000)
    return g


# ---- transformers (2-D activations [tokens, hidden]) ---------------------------------------

def dense(g, name, x, n_out, act=None):
    m, k = g.shape(x)
    wt = g.tensor(name + "/kernel", [k, n_out])
    b = g.tensor(name + "/bias", [n_out])
    y = g.node(name + "/MatMul", "MatMul", [x, wt], [m, n_out],
               attrs={"transpose_a": False, "transpose_b": False})
    y = g.node(name + "/BiasAdd", "BiasAdd", [y, b], [m, n_out])
    if act:
        y = g.node(name + "/" + act, act, [y], [m, n_out])
    return y


def layer_norm(g, name, x):
    h = g.shape(x)[-1]
    gamma = g.tensor(name + "/gamma", [h])
    beta = g.tensor(name + "/beta", [h])
    return g.node(name, "LayerNorm", [x, gamma, beta], g.shape(x),
                  attrs={"begin_norm_axis": -1, "begin_params_axis": -1, "epsilon": 1e-5})


def attention(g, p, x, batch, seq, heads, mask):
    tokens, hidden = g.shape(x)
    d = hidden // heads
    def split(name, t):
        return g.node(name, "Reshape", [t], [batch, heads, seq, d])
    q = split(p + "/query/split", dense(g, p + "/query", x, hidden))
    k = split(p + "/key/split", dense(g, p + "/key", x, hidden))
    v = split(p + "/value/split", dense(g, p + "/value", x, hidden))
    s = g.node(p + "/scores/BatchMatMul", "BatchMatMul", [q, k], [batch, heads, seq, seq],
               attrs={"adj_x1": False, "adj_x2": True})
    scale = g.tensor(p + "/scale", [1])
    s = g.node(p + "/scores/Mul", "Mul", [s, scale], [batch, heads, seq, seq])
    s = g.node(p + "/scores/add_mask", "Add", [s, mask], [batch, heads, seq, seq])
    s = g.node(p + "/Softmax", "SoftmaxV2", [s], [batch, heads, seq, seq], attrs={"axes": [-1]})
    c = g.node(p + "/context/BatchMatMul", "BatchMatMul", [s, v], [batch, heads, seq, d],
               attrs={"adj_x1": False, "adj_x2": False})
    return g.node(p + "/context/merge", "Reshape", [c], [tokens, hidden])


def bert_base(batch=16, seq=128, layers=12, hidden=768, heads=12, ffn=3072):
    g = Graph("bert_base")
    x = g.tensor("embeddings", [batch * seq, hidden])
    mask = g.tensor("attention_mask", [batch, 1, 1, seq])
    for layer in range(layers):
        p = "bert/encoder/layer_%d" % layer
        a = attention(g, p + "/attention/self", x, batch, seq, heads, mask)
        a = dense(g, p + "/attention/output/dense", a, hidden)
        a = g.node(p + "/attention/output/add", "Add", [a, x], [batch * seq, hidden])
        x = layer_norm(g, p + "/attention/output/LayerNorm", a)
        f = dense(g, p + "/intermediate/dense", x, ffn, "Gelu")
        f = dense(g, p + "/output/dense", f, hidden)
        f = g.node(p + "/output/add", "Add", [f, x], [batch * seq, hidden])
        x = layer_norm(g, p + "/output/LayerNorm", f)
    return g


def gpt2_block(batch=8, seq=1024, hidden=768, heads=12, ffn=3072):
    g = Graph("gpt2_block")
    x = g.tensor("hidden_states", [batch * seq, hidden])
    mask = g.tensor("causal_mask", [1, 1, seq, seq])
    p = "h.0"
    h = layer_norm(g, p + "/ln_1", x)
    a = attention(g, p + "/attn", h, batch, seq, heads, mask)
    a = dense(g, p + "/attn/c_proj", a, hidden)
    x = g.node(p + "/attn/residual", "Add", [a, x], [batch * seq, hidden])
    h = layer_norm(g, p + "/ln_2", x)
    f = dense(g, p + "/mlp/c_fc", h, ffn, "Gelu")
    f = dense(g, p + "/mlp/c_proj", f, hidden)
    g.node(p + "/mlp/residual", "Add", [f, x], [batch * seq, hidden])
    return g


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for build in (resnet50, bert_base, mobilenet_v2, gpt2_block):
        graph = build()
        path = graph.write(here)
        print("%s: %d nodes, %d bytes" % (path, len(graph.nodes), os.path.getsize(path)))
