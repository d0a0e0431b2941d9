/* fe-rt.c -- the Stokes elements of doc/stokes.md section 1: Raviart-Thomas RT_k (component
 * i continuous of degree k+1 on k+2 Gauss-Lobatto points in direction i, discontinuous of
 * degree k on k+1 Gauss points across) and the discontinuous DGQ_k on k+1 Gauss points,
 * k = 0..TS_STOKES_MAX_DEGREE; and the family queries shared by every element. */
#include "../tessera-impl.h"

/* A new element of the family with the k+1 Gauss points, and for RT_k also the k+2
 * Gauss-Lobatto points of a component's own direction. */
static int create_gauss_element(ts_fe_family family, const char *name, int dim, int degree,
                                ts_fe *fe) {
  double weights[TS_MAX_DEGREE + 2];
  TS_CHECK_ARG(fe, "%s element: fe is NULL", name);
  *fe = NULL;
  TS_CHECK_ARG(dim == 2 || dim == 3, "%s element: dim = %d, allowed 2 or 3", name, dim);
  TS_CHECK_ARG(degree >= 0 && degree <= TS_STOKES_MAX_DEGREE,
               "%s element: degree = %d, allowed 0..%d", name, degree, TS_STOKES_MAX_DEGREE);
  ts_fe f;
  TS_CALL(ts_calloc(1, sizeof *f, "finite element", &f));
  f->family = family;
  f->dim = dim;
  f->degree = degree;
  int ierr = ts_gauss_rule(degree + 1, f->points, weights);
  if (!ierr && family == TS_FE_RT) ierr = ts_gauss_lobatto_rule(degree + 2, f->normal_points, weights);
  if (ierr) {
    ts_free(&f);
    return ts_error_trace(ierr, __FILE__, __LINE__, "element support points");
  }
  *fe = f;
  return 0;
}

int ts_fe_create_rt(int dim, int degree, ts_fe *fe) {
  TS_CALL(create_gauss_element(TS_FE_RT, "RT_k", dim, degree, fe));
  return 0;
}

int ts_fe_create_dgq(int dim, int degree, ts_fe *fe) {
  TS_CALL(create_gauss_element(TS_FE_DGQ, "DGQ_k", dim, degree, fe));
  return 0;
}

ts_fe_family ts_fe_family_of(ts_fe fe) {
  TS_GETTER_NOT_NULL(fe, TS_FE_INVALID);
  return fe->family;
}

int ts_fe_components(ts_fe fe) {
  TS_GETTER_NOT_NULL(fe, -1);
  return fe->family == TS_FE_RT ? fe->dim : 1;
}
