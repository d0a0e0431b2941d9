/* fe-rt.c -- the Stokes elements of doc/stokes.md section 1: Raviart-Thomas RT_k (component
 * i continuous of degree k+1 on k+2 Gauss-Lobatto points in direction i, discontinuous of
 * degree k on k+1 Gauss points across) and the discontinuous DGQ_k on k+1 Gauss points,
 * k = 0..TS_STOKES_MAX_DEGREE; the same spaces in the interpolation-histopolation bases of
 * paper 003 (DoFs: fluxes through and integrals over the Gauss-Lobatto sub-cells); and the
 * family queries shared by every element. */
#include "../tessera-impl.h"

/* The 1D points of an element: RT_k and DGQ_k the k+1 Gauss points, RT_k also the k+2
 * Gauss-Lobatto points of a component's own direction; the interpolation-histopolation
 * family the k+2 Gauss-Lobatto points that cut a cell into sub-cells and the midpoints of
 * the sub-intervals as the places of the DoFs. */
static int support_points(ts_fe f) {
  double weights[TS_MAX_DEGREE + 2];
  const int k = f->degree;
  if (f->family == TS_FE_RT_IH || f->family == TS_FE_L2_IH) {
    TS_CALL(ts_gauss_lobatto_rule(k + 2, f->normal_points, weights));
    for (int a = 0; a <= k; ++a) f->points[a] = 0.5 * (f->normal_points[a] + f->normal_points[a + 1]);
    return 0;
  }
  TS_CALL(ts_gauss_rule(k + 1, f->points, weights));
  if (f->family == TS_FE_RT) TS_CALL(ts_gauss_lobatto_rule(k + 2, f->normal_points, weights));
  return 0;
}

/* A new element of one of the families of this file, degree 0..TS_STOKES_MAX_DEGREE. */
static int create_element(ts_fe_family family, const char *name, int dim, int degree,
                          ts_fe *fe) {
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
  const int ierr = support_points(f);
  if (ierr) {
    ts_free(&f);
    return ts_error_trace(ierr, __FILE__, __LINE__, "element support points");
  }
  *fe = f;
  return 0;
}

int ts_fe_create_rt_ih(int dim, int degree, ts_fe *fe) {
  TS_CALL(create_element(TS_FE_RT_IH, "RT_k (interpolation-histopolation)", dim, degree, fe));
  return 0;
}

int ts_fe_create_l2_ih(int dim, int degree, ts_fe *fe) {
  TS_CALL(create_element(TS_FE_L2_IH, "DGQ_k (histopolation)", dim, degree, fe));
  return 0;
}

int ts_fe_create_rt(int dim, int degree, ts_fe *fe) {
  TS_CALL(create_element(TS_FE_RT, "RT_k", dim, degree, fe));
  return 0;
}

int ts_fe_create_dgq(int dim, int degree, ts_fe *fe) {
  TS_CALL(create_element(TS_FE_DGQ, "DGQ_k", dim, degree, fe));
  return 0;
}

ts_fe_family ts_fe_family_of(ts_fe fe) {
  TS_GETTER_NOT_NULL(fe, TS_FE_INVALID);
  return fe->family;
}

int ts_fe_components(ts_fe fe) {
  TS_GETTER_NOT_NULL(fe, -1);
  return fe->family == TS_FE_RT || fe->family == TS_FE_RT_IH ? fe->dim : 1;
}
