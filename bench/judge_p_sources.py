"""How p from the verdict token's logprobs compares with the judge's verbalised p.

Reads `gear judge --p-from logprobs` output (JSONL on stdin or a path) and prints, over the
criteria the judge answered readably: how many, the mean of each p, their mean absolute difference,
Pearson correlation, and how often the two agree on the side of 0.5 (the decision d).
"""
import json
import math
import sys


def main() -> None:
    source = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    pairs = []
    for line in source:
        record = json.loads(line)
        for c in record.get("criteria", []):
            if c.get("p_verbalized") is not None and c.get("p_logprob") is not None:
                pairs.append((float(c["p_verbalized"]), float(c["p_logprob"])))
    n = len(pairs)
    if n == 0:
        print("no criterion has both a verbalised and a logprob p")
        return
    v = [a for a, _ in pairs]
    l = [b for _, b in pairs]
    mv, ml = sum(v) / n, sum(l) / n
    cov = sum((a - mv) * (b - ml) for a, b in pairs)
    sv = math.sqrt(sum((a - mv) ** 2 for a in v))
    sl = math.sqrt(sum((b - ml) ** 2 for b in l))
    r = cov / (sv * sl) if sv > 0 and sl > 0 else float("nan")
    agree = sum((a >= 0.5) == (b >= 0.5) for a, b in pairs) / n
    mad = sum(abs(a - b) for a, b in pairs) / n
    print(f"criteria {n}  mean p verbalised {mv:.3f}  mean p logprob {ml:.3f}  mean |diff| {mad:.3f}  pearson r {r:.3f}  same side of 0.5 {agree:.1%}")
    print(f"distinct verbalised values {len(set(v))}  distinct logprob values {len(set(round(x, 6) for x in l))}")


if __name__ == "__main__":
    main()
