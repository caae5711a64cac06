/* Every member of every struct in the ABI 1.0 headers (tests/abi/v1_0),
 * extracted once from them.  layout_test compiles this list against the
 * 1.0 copies and against core/include and requires each member at the same
 * offset with the same size: 1.x structs only ever grow at their end. */
#define ABI_1_0_MEMBERS(M) \
    M(wb_plugin_entry, abi_major) \
    M(wb_plugin_entry, abi_minor) \
    M(wb_plugin_entry, struct_size) \
    M(wb_plugin_entry, kind) \
    M(wb_plugin_entry, name) \
    M(wb_plugin_entry, version) \
    M(wb_plugin_entry, description) \
    M(wb_plugin_entry, descriptor) \
    M(wb_step_stats, struct_size) \
    M(wb_step_stats, steps) \
    M(wb_step_stats, newton_iterations) \
    M(wb_step_stats, residual_evals) \
    M(wb_step_stats, jacobian_evals) \
    M(wb_step_stats, linear_solves) \
    M(wb_step_stats, function_evals) \
    M(wb_tableau, struct_size) \
    M(wb_tableau, s) \
    M(wb_tableau, a) \
    M(wb_tableau, b) \
    M(wb_tableau, c) \
    M(wb_tableau, a2) \
    M(wb_tableau, b2) \
    M(wb_tableau, c2) \
    M(wb_tableau, name) \
    M(wb_tableau, order) \
    M(wb_tableau, order_first) \
    M(wb_newton_options, struct_size) \
    M(wb_newton_options, tol) \
    M(wb_newton_options, step_tol) \
    M(wb_newton_options, max_iter) \
    M(wb_newton_options, simplified) \
    M(wb_newton_options, fd_eps) \
    M(wb_newton_options, settle_update) \
    M(wb_newton_report, struct_size) \
    M(wb_newton_report, iterations) \
    M(wb_newton_report, residual_norm) \
    M(wb_newton_report, step_norm) \
    M(wb_host, abi_major) \
    M(wb_host, abi_minor) \
    M(wb_host, struct_size) \
    M(wb_host, error) \
    M(wb_host, log) \
    M(wb_host, lu_factor) \
    M(wb_host, lu_solve) \
    M(wb_host, dense_solve) \
    M(wb_host, cholesky_factor) \
    M(wb_host, cholesky_solve) \
    M(wb_host, banded_solve) \
    M(wb_host, newton_create) \
    M(wb_host, newton_destroy) \
    M(wb_host, newton_solve) \
    M(wb_host, newton_defaults) \
    M(wb_host, tableau_family) \
    M(wb_host, tableau_named) \
    M(wb_param_spec, name) \
    M(wb_param_spec, default_value) \
    M(wb_param_spec, min) \
    M(wb_param_spec, max) \
    M(wb_param_spec, doc) \
    M(wb_model_info, struct_size) \
    M(wb_model_info, nq) \
    M(wb_model_info, nv) \
    M(wb_model_info, n_holonomic) \
    M(wb_model_info, n_nonholonomic) \
    M(wb_model_info, mass_constant) \
    M(wb_model_info, n_invariants) \
    M(wb_model_info, invariant_names) \
    M(wb_model_class, struct_size) \
    M(wb_model_class, name) \
    M(wb_model_class, doc) \
    M(wb_model_class, params) \
    M(wb_model_class, n_params) \
    M(wb_model_class, create) \
    M(wb_model_class, destroy) \
    M(wb_model_class, get_extension) \
    M(wb_mechanical_ext, struct_size) \
    M(wb_mechanical_ext, mass) \
    M(wb_mechanical_ext, mass_solve) \
    M(wb_mechanical_ext, potential) \
    M(wb_mechanical_ext, potential_gradient) \
    M(wb_mechanical_ext, potential_hessian) \
    M(wb_mechanical_ext, kinetic_gradient) \
    M(wb_holonomic_ext, struct_size) \
    M(wb_holonomic_ext, flags) \
    M(wb_holonomic_ext, constraints) \
    M(wb_holonomic_ext, jacobian) \
    M(wb_holonomic_ext, hessian_contract) \
    M(wb_holonomic_ext, hessian_vector) \
    M(wb_holonomic_ext, third_contract) \
    M(wb_nonholonomic_ext, struct_size) \
    M(wb_nonholonomic_ext, flags) \
    M(wb_nonholonomic_ext, constraints) \
    M(wb_nonholonomic_ext, jacobian_v) \
    M(wb_nonholonomic_ext, jacobian_q) \
    M(wb_nonholonomic_ext, hessian_vv_contract) \
    M(wb_nonholonomic_ext, hessian_qv_contract) \
    M(wb_invariants_ext, struct_size) \
    M(wb_invariants_ext, evaluate) \
    M(wb_invariants_ext, energy) \
    M(wb_invariants_ext, generator) \
    M(wb_initial_state_ext, struct_size) \
    M(wb_initial_state_ext, initial) \
    M(wb_potential_invariants_ext, struct_size) \
    M(wb_potential_invariants_ext, count) \
    M(wb_potential_invariants_ext, invariants) \
    M(wb_potential_invariants_ext, invariants_gradient) \
    M(wb_potential_invariants_ext, potentials) \
    M(wb_potential_invariants_ext, difference_quotient) \
    M(wb_lie_group_ext, struct_size) \
    M(wb_lie_group_ext, identity) \
    M(wb_lie_group_ext, compose) \
    M(wb_lie_group_ext, inverse) \
    M(wb_lie_group_ext, exp) \
    M(wb_lie_group_ext, log) \
    M(wb_lie_group_ext, dexp) \
    M(wb_lie_group_ext, dexpinv) \
    M(wb_lie_group_ext, ad) \
    M(wb_lie_group_ext, ad_star) \
    M(wb_lie_group_ext, Ad) \
    M(wb_lie_group_ext, Ad_star) \
    M(wb_lie_group_ext, cay) \
    M(wb_lie_group_ext, dcayinv) \
    M(wb_lie_hamiltonian_ext, struct_size) \
    M(wb_lie_hamiltonian_ext, hamiltonian) \
    M(wb_lie_hamiltonian_ext, vector_field) \
    M(wb_model, struct_size) \
    M(wb_model, name) \
    M(wb_model, nq) \
    M(wb_model, nv) \
    M(wb_model, n_holonomic) \
    M(wb_model, n_nonholonomic) \
    M(wb_model, n_invariants) \
    M(wb_model, mass_constant) \
    M(wb_model, capabilities) \
    M(wb_model, holonomic_flags) \
    M(wb_model, nonholonomic_flags) \
    M(wb_model, invariant_names) \
    M(wb_model, mass) \
    M(wb_model, mass_solve) \
    M(wb_model, potential) \
    M(wb_model, potential_gradient) \
    M(wb_model, potential_hessian) \
    M(wb_model, kinetic_gradient) \
    M(wb_model, energy) \
    M(wb_model, constraints) \
    M(wb_model, constraint_jacobian) \
    M(wb_model, constraint_hessian_contract) \
    M(wb_model, constraint_hessian_vector) \
    M(wb_model, constraint_third_contract) \
    M(wb_model, hidden_constraints) \
    M(wb_model, index1_multiplier) \
    M(wb_model, nh_constraints) \
    M(wb_model, nh_jacobian_v) \
    M(wb_model, nh_jacobian_q) \
    M(wb_model, nh_hessian_vv_contract) \
    M(wb_model, nh_hessian_qv_contract) \
    M(wb_model, invariants) \
    M(wb_model, invariant_generator) \
    M(wb_model, initial) \
    M(wb_model, lie_group) \
    M(wb_model, lie_hamiltonian) \
    M(wb_model, lie_self) \
    M(wb_model, n_potential_invariants) \
    M(wb_model, potential_discrete_gradient) \
    M(wb_option_spec, name) \
    M(wb_option_spec, type) \
    M(wb_option_spec, default_number) \
    M(wb_option_spec, min) \
    M(wb_option_spec, max) \
    M(wb_option_spec, default_string) \
    M(wb_option_spec, choices) \
    M(wb_option_spec, doc) \
    M(wb_option_value, number) \
    M(wb_option_value, string) \
    M(wb_option_value, tableau) \
    M(wb_method_props, struct_size) \
    M(wb_method_props, order) \
    M(wb_method_props, multiplier_order) \
    M(wb_method_props, flags) \
    M(wb_aux_spec, name) \
    M(wb_aux_spec, size_kind) \
    M(wb_aux_spec, size) \
    M(wb_aux_spec, time) \
    M(wb_aux_spec, doc) \
    M(wb_method, struct_size) \
    M(wb_method, name) \
    M(wb_method, doc) \
    M(wb_method, options) \
    M(wb_method, n_options) \
    M(wb_method, requires) \
    M(wb_method, handles) \
    M(wb_method, order_doc) \
    M(wb_method, property_flags) \
    M(wb_method, aux) \
    M(wb_method, n_aux) \
    M(wb_method, describe) \
    M(wb_method, create) \
    M(wb_method, destroy) \
    M(wb_method, reset) \
    M(wb_method, step) \
    M(wb_method, aux_values) \
    M(wb_method, validate) \
    M(wb_family, struct_size) \
    M(wb_family, name) \
    M(wb_family, doc) \
    M(wb_family, methods) \
    M(wb_family, n_methods)

/* The structs, for their sizes. */
#define ABI_1_0_STRUCTS(S) \
    S(wb_plugin_entry) \
    S(wb_step_stats) \
    S(wb_tableau) \
    S(wb_newton_options) \
    S(wb_newton_report) \
    S(wb_host) \
    S(wb_param_spec) \
    S(wb_model_info) \
    S(wb_model_class) \
    S(wb_mechanical_ext) \
    S(wb_holonomic_ext) \
    S(wb_nonholonomic_ext) \
    S(wb_invariants_ext) \
    S(wb_initial_state_ext) \
    S(wb_potential_invariants_ext) \
    S(wb_lie_group_ext) \
    S(wb_lie_hamiltonian_ext) \
    S(wb_model) \
    S(wb_option_spec) \
    S(wb_option_value) \
    S(wb_method_props) \
    S(wb_aux_spec) \
    S(wb_method) \
    S(wb_family)
