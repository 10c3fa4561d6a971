import { parser } from '@prometheus-io/lezer-promql';

export interface PromqlExpression {
  /** The metric names it selects, in order of appearance. */
  series: string[];
  /** Where the parser found a syntax error (character offsets); empty for a valid expression. */
  errors: number[];
}

/** Parses PromQL with Prometheus's own grammar (the one its web UI uses). */
export function parsePromql(expr: string): PromqlExpression {
  const series: string[] = [];
  const errors: number[] = [];
  parser.parse(expr).iterate({
    enter: (node) => {
      if (node.type.isError) errors.push(node.from);
      else if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector')
        series.push(expr.slice(node.from, node.to));
    },
  });
  return { series, errors };
}
