/* fe-q.c -- the continuous Q_k element: tensor product of 1D Lagrange polynomials on the
 * k+1 Gauss-Lobatto points, k = 1..TS_MAX_DEGREE. */
#include "../tessera-impl.h"

int ts_fe_create_q(int dim, int degree, ts_fe *fe) {
  double weights[TS_MAX_DEGREE + 1];
  TS_CHECK_NOT_NULL(fe);
  *fe = NULL;
  TS_CHECK_ARG(dim == 2 || dim == 3, "Q_k element: dim = %d, allowed 2 or 3", dim);
  TS_CHECK_ARG(degree >= 1 && degree <= TS_MAX_DEGREE, "Q_k element: degree = %d, allowed 1..%d",
               degree, TS_MAX_DEGREE);
  ts_fe f;
  TS_CALL(ts_calloc(1, sizeof *f, "finite element", &f));
  f->family = TS_FE_Q;
  f->dim = dim;
  f->degree = degree;
  int ierr = ts_gauss_lobatto_rule(degree + 1, f->points, weights);
  if (ierr) {
    ts_free(&f);
    return ts_error_trace(ierr, __FILE__, __LINE__, "ts_gauss_lobatto_rule");
  }
  *fe = f;
  return 0;
}

int ts_fe_destroy(ts_fe *fe) {
  if (fe) ts_free(fe);
  return 0;
}
int ts_fe_degree(ts_fe fe) {
  TS_GETTER_NOT_NULL(fe, -1);
  return fe->degree;
}

int ts_fe_dim(ts_fe fe) {
  TS_GETTER_NOT_NULL(fe, -1);
  return fe->dim;
}

const double *ts_fe_points_1d(ts_fe fe) {
  TS_GETTER_NOT_NULL(fe, NULL);
  return fe->points;
}
