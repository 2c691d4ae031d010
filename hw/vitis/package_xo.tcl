# package_xo.tcl - packages the accelerator as a Vitis RTL kernel (.xo). Run by `make xclbin`:
#   vivado -mode batch -source hw/vitis/package_xo.tcl -tclargs OUTDIR REPO PART
# OUTDIR holds what the flow generated for the configuration: vta_pkg.sv (the RTL's parameter
# package), kernel.xml (Vitis' kernel description) and kernel_regs.tcl (the s_axi_control
# register map); all three come from isa/ (include/vta/regmap.h and the configuration).
# Writes OUTDIR/vta.xo.
if {[llength $argv] != 3} {
  puts stderr "usage: vivado -mode batch -source package_xo.tcl -tclargs OUTDIR REPO PART"
  exit 2
}
lassign $argv out repo part
set ip_dir $out/ip

create_project -force vta_kernel $out/vivado -part $part
add_files -norecurse [concat [list $out/vta_pkg.sv] [glob $repo/hw/rtl/*.sv] [list $repo/hw/vitis/vta.sv]]
set_property top vta [current_fileset]
update_compile_order -fileset sources_1

# The RTL as an IP whose interfaces Vitis recognises by name (ap_clk, ap_rst_n, s_axi_control,
# m_axi_gmem, interrupt).
ipx::package_project -root_dir $ip_dir -vendor vta.local -library kernel -taxonomy /KernelIP \
  -import_files -set_current false
ipx::unload_core $ip_dir/component.xml
ipx::edit_ip_in_project -upgrade true -name vta_edit -directory $ip_dir $ip_dir/component.xml
set core [ipx::current_core]
set_property sdx_kernel true $core
set_property sdx_kernel_type rtl $core
set_property ipi_drc {ignore_freq_hz true} $core
ipx::associate_bus_interfaces -busif s_axi_control -clock ap_clk $core
ipx::associate_bus_interfaces -busif m_axi_gmem -clock ap_clk $core
source $out/kernel_regs.tcl
ipx::create_xgui_files $core
ipx::update_checksums $core
ipx::check_integrity -kernel $core
ipx::save_core $core
close_project -delete

package_xo -force -xo_path $out/vta.xo -kernel_name vta -ip_directory $ip_dir \
  -kernel_xml $out/kernel.xml
